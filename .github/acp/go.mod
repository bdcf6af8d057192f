module github.com/dsh-go/userinteraction/.github/acp

go 1.25.0

require github.com/dsh-go/userinteraction v0.0.0

require github.com/coder/acp-go-sdk v0.13.0

replace github.com/dsh-go/userinteraction => ../..
