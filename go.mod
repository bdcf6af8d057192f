module github.com/dsh-go/userinteraction

go 1.22
