package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing/fstest"

	"github.com/tessera-dev/tessera/client"
)

// promptServer stands in for tessera serve: it answers one text prompt.
func promptServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pk, sk, _ := r.BasicAuth(); pk != "pk-lf-demo" || sk != "sk-lf-demo" {
			http.Error(w, `{"message":"unknown key pair"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("ETag", `"6d3c…"`)
		fmt.Fprint(w, `{"name":"support/triage","version":3,"type":"text",`+
			`"prompt":"Classify this ticket for {{product}}: {{ticket}}","config":{},`+
			`"labels":["production"],"tags":["template"],"commitMessage":"Tighter triage",`+
			`"commit":"4f2a9c1e0b7d","hash":"6d3c…","sources":[]}`)
	}))
}

func ExampleClient_Get() {
	srv := promptServer()
	defer srv.Close()

	c, err := client.New(client.Options{BaseURL: srv.URL, PublicKey: "pk-lf-demo", SecretKey: "sk-lf-demo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	// The version the production label points at; cached for 60 s.
	p, err := c.Get(context.Background(), "support/triage", client.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Version, p.Labels, p.CommitMessage)
	fmt.Println(p.Compile(map[string]any{"product": "Tessera", "ticket": "replay says mismatch"}))
	// Output:
	// support/triage 3 [production] Tighter triage
	// Classify this ticket for Tessera: replay says mismatch
}

// With the server out of reach, a prompt that is not cached comes from
// the compiled catalog embedded in the program (here a map; in a program,
// a go:embed of tessera compile's output directory), flagged Fallback.
func ExampleOptions_fallback() {
	catalog := fstest.MapFS{
		"manifest.json": {Data: []byte(`{"prompts":[{"path":"support/triage.txt",` +
			`"hash":"c329a017486d6fa5b624513cb35e2767272cfb76ab281960577fd1155ee74a4e"}]}`)},
		"support/triage.txt": {Data: []byte("Classify this ticket: {{ticket}}")},
	}
	c, err := client.New(client.Options{BaseURL: "http://127.0.0.1:1", Fallback: catalog})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	p, err := c.Get(context.Background(), "support/triage", client.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Fallback, p.Compile(map[string]any{"ticket": "login fails"}))
	// Output:
	// true Classify this ticket: login fails
}
