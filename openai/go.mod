module github.com/tessera-dev/tessera/openai

go 1.26.0

require (
	github.com/openai/openai-go/v3 v3.96.0
	github.com/tessera-dev/tessera v0.0.0
)

require (
	github.com/blevesearch/snowballstem v0.9.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/tessera-dev/tessera => ../
