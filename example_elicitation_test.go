package userinteraction_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// elicit stands for an SDK's elicitation/create call, such as the MCP Go
// SDK's ServerSession.Elicit: it shows the form and returns the human's
// response. Here the human picks Production.
func elicit(ctx context.Context, form userinteraction.Elicitation) (action string, content map[string]any, err error) {
	params, _ := json.Marshal(form)
	fmt.Printf("elicitation/create %s\n", params)
	return "accept", map[string]any{"choice": "Production"}, nil
}

// This example shows the form elicitation a question becomes, as MCP and ACP
// clients receive it, and the answer its response maps back to.
func ExampleElicitation() {
	forms := userinteraction.NewForm(elicit)
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, forms)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()

	ans, err := userinteraction.Ask(session, userinteraction.Request{
		Header:   "Deploy",
		Question: "Deploy where?",
		Options: []userinteraction.Option{
			{Label: "Staging", Value: "staging", Recommended: true},
			{Label: "Production", Value: "production", Description: "the live site"},
		},
		DisallowCustom: true,
	})
	fmt.Println("answer:", ans.Text, err)
	// Output:
	// elicitation/create {"mode":"form","message":"Deploy where?\nProduction: the live site","requestedSchema":{"properties":{"choice":{"default":"Staging","enum":["Staging","Production"],"title":"Deploy","type":"string"}},"required":["choice"],"type":"object"}}
	// answer: production <nil>
}
