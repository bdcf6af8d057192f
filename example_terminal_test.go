package userinteraction_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/dsh-go/userinteraction"
)

// This example shows a host that asks on the terminal. It runs the tool step
// under signal.NotifyContext, so that Ctrl-C cancels the question rather than
// the program. The answers are piped in, as `printf '3\n1\n' | agent` pipes
// them: "3" is refused, "1" picks Delete. Piped answers are not echoed, so
// what follows a prompt ("> ") is the program's own output.
func ExampleTerminal() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	in := strings.NewReader("3\n1\n") // a real host passes os.Stdin
	dispose, err := userinteraction.Register(session, userinteraction.NewTerminal(in, os.Stdout))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()

	step, stop := signal.NotifyContext(session, os.Interrupt) // one tool step
	defer stop()
	ans, err := userinteraction.Ask(step, userinteraction.Request{
		Question: "Delete notes.txt?",
		Options: []userinteraction.Option{
			{Label: "Delete", Value: "delete"},
			{Label: "Keep", Value: "keep", Recommended: true},
		},
		DisallowCustom: true,
	})
	if err != nil {
		fmt.Println("not deleted:", userinteraction.CodeOf(err)) // ASK_ABORTED after Ctrl-C
		return
	}
	fmt.Println("answer:", ans.Text)
	// Output:
	// | Delete notes.txt?
	//   1. Delete
	// * 2. Keep
	// 1-2, or Enter for 2
	// > There is no option 3.
	// 1-2, or Enter for 2
	// > answer: delete
}
