// client.mjs runs cases.json, as acp_test.go does with the Go SDK, with the
// official ACP TypeScript client (package.json pins it and Node 22): it
// spawns the agent given as its arguments (such as `go run .`) once per case,
// over stdio, and exits 1 at any difference.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

setTimeout(() => (console.log("FAIL: no end after 60 s"), process.exit(1)), 60_000).unref(); // a form never withdrawn
const cases = JSON.parse(readFileSync(new URL("cases.json", import.meta.url)));
let failed = 0;
for (const tc of cases) {
  const errors = await run(tc).catch((err) => [String(err)]);
  failed += errors.length > 0;
  console.log(`${errors.length ? "FAIL" : "ok  "} ${tc.name}${errors.map((e) => "\n     " + e).join("")}`);
}
console.log(`${cases.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// run runs one case on an agent of its own, and returns what differed.
async function run(tc) {
  const errors = [];
  const agent = spawn(process.argv[2], process.argv.slice(3), { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => agent.on("exit", resolve));
  const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
  let session, call, result, asked = 0;
  const app = acp
    .client({ name: "client.mjs" })
    .onNotification(acp.methods.client.session.update, ({ params: { update } }) => {
      if (update.sessionUpdate === "tool_call") call = update.toolCallId;
      if (update.sessionUpdate === "tool_call_update" && update.status === "completed") result = update.content?.[0]?.content?.text;
    })
    .onRequest(acp.methods.client.elicitation.create, async ({ params, signal, agent }) => {
      const want = tc.forms[asked++];
      if (!want) return errors.push(`form ${asked}: not expected`), { action: "cancel" };
      if (params.mode !== "form" || params.sessionId !== session || params.toolCallId !== call || !call)
        errors.push(`form ${asked}: mode ${params.mode}, session ${params.sessionId}, tool call ${params.toolCallId}; want form, ${session}, ${call}`);
      if (!params.message.startsWith(want.message)) errors.push(`form ${asked} says ${JSON.stringify(params.message)}, want it to start with ${JSON.stringify(want.message)}`);
      if (want.action === "cancel the turn") {
        await agent.notify(acp.methods.agent.session.cancel, { sessionId: session });
        await new Promise((withdrawn) => signal.addEventListener("abort", withdrawn)); // the agent's $/cancel_request
        return { action: "cancel" };
      }
      return want.content ? { action: want.action, content: want.content } : { action: want.action };
    });
  const stop = await app.connectWith(stream, async (cx) => {
    await cx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: tc.noForms ? {} : { elicitation: { form: {} } },
    });
    ({ sessionId: session } = await cx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] }));
    const res = await cx.request(acp.methods.agent.session.prompt, { sessionId: session, prompt: [{ type: "text", text: tc.prompt }] });
    return res.stopReason;
  });
  agent.stdin.end();
  await exited;
  if (stop !== (tc.stop ?? "end_turn")) errors.push(`stop reason ${stop}, want ${tc.stop ?? "end_turn"}`);
  if (result !== tc.result) errors.push(`the tool's result ${JSON.stringify(result)}, want ${JSON.stringify(tc.result)}`);
  if (asked !== tc.forms.length) errors.push(`${asked} forms, want ${tc.forms.length}`);
  return errors;
}
