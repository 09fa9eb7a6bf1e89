module github.com/tessera-dev/tessera/bench/peers

go 1.26.0

require (
	github.com/google/dotprompt/go v0.0.0-20251121213842-db5416a4f7ce
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/tessera-dev/tessera v0.0.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/blevesearch/snowballstem v0.9.0 // indirect
	github.com/buger/jsonparser v1.1.1 // indirect
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/goccy/go-yaml v1.18.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/invopop/jsonschema v0.13.0 // indirect
	github.com/mailru/easyjson v0.9.1 // indirect
	github.com/mbleigh/raymond v0.0.0-20250414171441-6b3a58ab9e0a // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/wk8/go-ordered-map/v2 v2.1.8 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/tessera-dev/tessera => ../..
