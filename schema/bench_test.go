package schema

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// triageSchema is a realistic output schema of about 3 KB, written as a
// person writes one: indented, with nested objects, arrays of objects, a
// definition used by reference, enums and escaped text in descriptions.
// It is not strict: some properties are optional and most objects are
// open, so Strictify has work to do everywhere.
const triageSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "ticket_triage.v3",
  "description": "Triage of one support ticket.\nFill every field from the ticket text; never invent an \"order id\".",
  "type": "object",
  "properties": {
    "ticket": {
      "type": "object",
      "description": "What the ticket is about.",
      "properties": {
        "id": {"type": "string", "pattern": "^T-[0-9]{6}$"},
        "summary": {"type": "string", "description": "One sentence, in the customer's language."},
        "category": {"type": "string", "enum": ["billing", "bug", "feature_request", "account", "shipping", "other"]},
        "priority": {"type": "string", "enum": ["p0", "p1", "p2", "p3"], "description": "p0 means \"customers are losing data\"."},
        "product_area": {"type": "string"}
      },
      "required": ["id", "summary", "category", "priority"]
    },
    "customer": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "plan": {"type": "string", "enum": ["free", "team", "business", "enterprise"]},
        "account_age_days": {"type": "integer", "minimum": 0},
        "address": {"$ref": "#/$defs/address"}
      },
      "required": ["name", "plan"]
    },
    "entities": {
      "type": "array",
      "description": "Things the ticket names, in the order they appear.",
      "maxItems": 20,
      "items": {
        "type": "object",
        "properties": {
          "kind": {"type": "string", "enum": ["order", "invoice", "device", "person", "url"]},
          "value": {"type": "string"},
          "confidence": {"type": "number", "minimum": 0, "maximum": 1}
        },
        "required": ["kind", "value"]
      }
    },
    "actions": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "kind": {"type": "string", "enum": ["reply", "refund", "escalate", "close", "merge"]},
          "target": {"type": "string", "description": "A team, a person or a ticket id."},
          "reason": {"type": "string"},
          "due": {"type": "string", "format": "date"},
          "details": {
            "type": "object",
            "properties": {
              "amount": {"type": "number"},
              "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
              "notes": {"type": ["string", "null"]}
            },
            "required": ["amount", "currency"]
          }
        },
        "required": ["kind", "reason"]
      }
    },
    "sentiment": {
      "type": "object",
      "properties": {
        "label": {"type": "string", "enum": ["negative", "neutral", "positive"]},
        "score": {"type": "number", "minimum": -1, "maximum": 1}
      },
      "required": ["label"],
      "additionalProperties": false
    },
    "follow_up_questions": {
      "type": "array",
      "items": {"type": "string"},
      "description": "Questions to ask when the ticket leaves something out.\tAt most three."
    },
    "language": {"type": "string", "description": "BCP 47 tag, such as \"en\" or \"pt-BR\"."},
    "duplicate_of": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
  },
  "required": ["ticket", "customer", "entities", "actions", "sentiment"],
  "$defs": {
    "address": {
      "type": "object",
      "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"},
        "postal_code": {"type": "string"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"}
      },
      "required": ["city", "country"]
    }
  }
}`

var benchSink []Violation

// BenchmarkStrictPipeline measures what a schema goes through on its way
// into a request body (checked, fixed, copied) on the path through bytes,
// where CheckStrict, Strictify and AppendCompact each read the schema
// again, and on the path through a Value parsed once.
func BenchmarkStrictPipeline(b *testing.B) {
	src := []byte(triageSchema)
	bytesPath := func(dst []byte) ([]byte, []Violation) {
		vs := CheckStrict(src)
		fixed, left, err := Strictify(src)
		if err != nil {
			b.Fatal(err)
		}
		if dst, err = AppendCompact(dst, fixed); err != nil {
			b.Fatal(err)
		}
		return dst, append(vs, left...)
	}
	valuePath := func(dst []byte) ([]byte, []Violation) {
		v, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		vs := v.CheckStrict()
		fixed, left := v.Strictify()
		return fixed.AppendCompact(dst), append(vs, left...)
	}
	want, wantVs := bytesPath(nil)
	got, gotVs := valuePath(nil)
	if !bytes.Equal(got, want) || !slices.Equal(gotVs, wantVs) || len(wantVs) == 0 {
		b.Fatalf("the paths differ:\n%s\n%s", want, got)
	}
	for _, path := range []struct {
		name string
		run  func([]byte) ([]byte, []Violation)
	}{{"bytes", bytesPath}, {"value", valuePath}} {
		b.Run(path.name, func(b *testing.B) {
			dst := make([]byte, 0, 2*len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				dst, benchSink = path.run(dst[:0])
			}
		})
	}
}

// BenchmarkCheckStrictWide checks an object of 500 and of 5,000
// properties, all required, and reports the time per property.
//
// Target: linear; the time per property at 5,000 within 1.5× of that
// at 500 (before the name sets it was quadratic: 10× the properties took
// about 100× the time).
func BenchmarkCheckStrictWide(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprintf("properties=%d", n), func(b *testing.B) {
			var props, req []string
			for i := range n {
				props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
				req = append(req, fmt.Sprintf(`"p%d"`, i))
			}
			v, err := Parse([]byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `],"additionalProperties":false}`))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				// 5,000 properties is over strict mode's limit, so that
				// one reports a violation; the walk is what is measured.
				_ = v.CheckStrict()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/property")
		})
	}
}
