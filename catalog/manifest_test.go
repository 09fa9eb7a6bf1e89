package catalog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestManifestEntryJSON: an entry writes its preset's members first, in
// the preset's order, then path, hash and bytes, the bytes a manifest
// has always had; it reads back to the same entry; a member may not
// take path, hash or bytes.
func TestManifestEntryJSON(t *testing.T) {
	e := ManifestEntry{Unit: []Member{{"workflow", "wf.v1"}, {"node", "n<1>"}, {"task_ref", ""}}, Path: "wf.v1/n<1>.txt", Hash: strings.Repeat("a", 64), Bytes: 12}
	got, err := json.MarshalIndent(Manifest{TesseraVersion: "v", Prompts: []ManifestEntry{e}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "tessera_version": "v",
  "prompts": [
    {
      "workflow": "wf.v1",
      "node": "n\u003c1\u003e",
      "path": "wf.v1/n\u003c1\u003e.txt",
      "hash": "` + strings.Repeat("a", 64) + `",
      "bytes": 12
    }
  ]
}`
	if string(got) != want {
		t.Errorf("manifest:\n%s\nwant\n%s", got, want)
	}
	var back Manifest
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	e.Unit = e.Unit[:2] // an empty member is left out
	if !reflect.DeepEqual(back.Prompts, []ManifestEntry{e}) {
		t.Errorf("read back %+v, want %+v", back.Prompts, e)
	}
	if back.Prompts[0].Get("node") != "n<1>" || back.Prompts[0].Get("spec") != "" {
		t.Errorf("Get: %q %q", back.Prompts[0].Get("node"), back.Prompts[0].Get("spec"))
	}
	if _, err := json.Marshal(ManifestEntry{Unit: []Member{{"hash", "x"}}}); err == nil || !strings.Contains(err.Error(), `"hash"`) {
		t.Errorf("a member named hash: %v", err)
	}
	for _, bad := range []string{`[]`, `{"bytes":"x"}`, `{"spec":1}`, `{"path":"a"`} {
		if err := json.Unmarshal([]byte(bad), new(ManifestEntry)); err == nil {
			t.Errorf("%s: read without error", bad)
		}
	}
}

// FuzzManifestEntry: any entry that reads writes to JSON that reads
// back to the same entry.
func FuzzManifestEntry(f *testing.F) {
	f.Add(`{"workflow":"w","node":"n","task_ref":"T","path":"w/n.txt","hash":"h","bytes":3}`)
	f.Add(`{"spec":"s/a.yaml","fixture":"f","path":"specs/a.txt","hash":"","bytes":0}`)
	f.Add(`{"path":"a","extra":"\u00e9\ud800"}`)
	f.Fuzz(func(t *testing.T, s string) {
		var e ManifestEntry
		if json.Unmarshal([]byte(s), &e) != nil {
			return
		}
		data, err := json.Marshal(e)
		if err != nil {
			return // a member named path, hash or bytes twice over, or empty
		}
		var back ManifestEntry
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		var kept []Member
		for _, m := range e.Unit {
			if m.Value != "" {
				kept = append(kept, m)
			}
		}
		e.Unit = kept
		if !reflect.DeepEqual(e, back) {
			t.Fatalf("%+v wrote %s, read back %+v", e, data, back)
		}
	})
}
