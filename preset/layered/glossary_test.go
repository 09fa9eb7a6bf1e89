package layered

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestGlossaryRead checks how a glossary file is read: the words of a
// headword, in lower case and without repeats, from any number of
// lines and files, each with the languages of the files that list it;
// comments and blank lines skipped; and each malformed line refused
// with its file and line and what to write instead.
func TestGlossaryRead(t *testing.T) {
	g := &glossary{lines: map[string][]glossLine{}}
	if err := g.read("de.tsv", []byte("# German\n\nInvoice\tRechnung; Faktura ;rechnung\nleave\tUrlaub;Beurlaubung\n")); err != nil {
		t.Fatal(err)
	}
	if err := g.read("ja.tsv", []byte("invoice\t請求書; 書\n")); err != nil {
		t.Fatal(err)
	}
	if err := g.read("pt.tsv", []byte("invoice\tfatura; factura\n")); err != nil { // Brazil's, Portugal's
		t.Fatal(err)
	}
	if err := g.read("es.tsv", []byte("invoice\tfactura\n")); err != nil {
		t.Fatal(err)
	}
	want := []glossTerm{{"rechnung", langDE}, {"faktur", langDE}, {"請求書", langJA}, {"fatura", langPT}, {"factur", langPT | langES}}
	if got := g.of("invoice"); !slices.Equal(got, want) {
		t.Errorf("of(invoice) = %v, want %v", got, want)
	}
	for term, want := range map[string][]string{
		"invoice":  {"rechnung", "faktur", "請求書", "fatura", "factur"}, // "書" is one ideograph, too short to match; "faktura" and "factura" loose
		"Invoices": {"rechnung", "faktur", "請求書", "fatura", "factur"},
		"leave":    {"urlaub", "beurlaubung"},
		"payroll":  nil,
	} {
		if got := glossWords(g.of(term)); !slices.Equal(got, want) {
			t.Errorf("of(%q) = %q, want %q", term, got, want)
		}
	}
	for _, c := range []struct{ data, want string }{
		{"invoice Rechnung\n", "x.tsv:1: want an English word, a tab"},
		{"# ok\n\tRechnung\n", "x.tsv:2: want an English word, a tab"},
		{"invoice\t\xff\n", "x.tsv:1: not UTF-8"},
		{"invoice\t" + strings.Repeat("a", maxGlossaryLine) + "\n", "x.tsv:1: a line of 4104 bytes: a line may hold at most 4096"},
	} {
		err := (&glossary{lines: map[string][]glossLine{}}).read("x.tsv", []byte(c.data))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("read(%q) = %v, want an error starting %q", c.data, err, c.want)
		}
	}
}

// TestSingulars checks the singular forms tried for an English plural.
func TestSingulars(t *testing.T) {
	for term, want := range map[string][]string{
		"policies":     {"policy", "policie"},
		"boxes":        {"box", "boxe"},
		"invoices":     {"invoic", "invoice"},
		"class":        nil,
		"bus":          nil,
		"sick leaves":  {"sick leav", "sick leave"},
		"address":      nil,
		"ids":          nil,
		"purchase ord": nil,
	} {
		if got := singulars(term); !slices.Equal(got, want) {
			t.Errorf("singulars(%q) = %q, want %q", term, got, want)
		}
	}
}

// TestBuiltinGlossary checks the built-in glossary reads, and that each
// of its languages carries everyday words of work across.
func TestBuiltinGlossary(t *testing.T) {
	g, err := builtinGlossary()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.lines) < 1000 {
		t.Errorf("the built-in glossary has %d headwords, want at least 1000", len(g.lines))
	}
	for head, want := range map[string][]string{
		"invoice": {"fatura", "factur", "rechnung", "发票", "請求書", "счёт"}, // factura, facture: loose
		"printer": {"impressor", "impresor", "imprimant", "drucker", "打印机", "プリンター", "принтер"},
	} {
		got := glossWords(g.of(head))
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("of(%q) = %q, want it to hold %q", head, got, w)
			}
		}
	}
	// A request verb's words are its own, and no other headword's:
	// "prüfen" is "check" before it is "review".
	check, review := glossWords(g.of("check")), glossWords(g.of("review"))
	if !slices.Contains(check, "prüfen") || slices.Contains(review, "prüfen") {
		t.Errorf("of(check) = %q, of(review) = %q: want prüfen in the first only", check, review)
	}
	for head := range g.lines {
		for _, w := range g.of(head) {
			if !glossable(w.word) || w.word != strings.ToLower(w.word) || !utf8.ValidString(w.word) {
				t.Errorf("%q: %q is not a word the glossary keeps", head, w.word)
			}
			// Every built-in file is named by its language's code.
			if w.lang == 0 || w.lang&langEN != 0 {
				t.Errorf("%q: %q of languages %b, want some of the seven besides English", head, w.word, w.lang)
			}
		}
	}
}

// FuzzGlossary checks that reading any file either fails or gives
// words a glossary keeps, and never panics.
func FuzzGlossary(f *testing.F) {
	f.Add([]byte("invoice\tRechnung; Faktura\n"))
	f.Add([]byte("# c\n\nleave\t休暇; отпуск;\n"))
	f.Add([]byte("x\n"))
	f.Add([]byte("a b\t;;;\n"))
	f.Add([]byte("complaint\tжалоба; претензия\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A file of no language, and the Russian one, whose words are
		// stemmed.
		for _, name := range []string{"f.tsv", "ru.tsv"} {
			g := &glossary{lines: map[string][]glossLine{}}
			if err := g.read(name, data); err != nil {
				if !strings.HasPrefix(err.Error(), name+":") {
					t.Fatalf("error %q does not name the file and line", err)
				}
				continue
			}
			for head := range g.lines {
				if head == "" || head != strings.ToLower(head) {
					t.Fatalf("headword %q kept", head)
				}
				words := glossWords(g.of(head))
				for i, w := range words {
					if !glossable(w) || w == head || slices.Contains(words[:i], w) {
						t.Fatalf("%s: %q: word %q kept", name, head, w)
					}
				}
			}
		}
	})
}

// TestLoose checks the stems loose gives.
func TestLoose(t *testing.T) {
	for w, want := range map[string]string{
		"aprovar":       "aprovar", // seven letters: an infinitive keeps its ending
		"aprovação":     "aprovaç",
		"reembolsar":    "reembols",
		"отсутствие":    "отсутств",
		"согласовать":   "согласов",
		"genehmigen":    "genehmigen",
		"fatura":        "fatura", // under seven letters: as written
		"note de frais": "note de frais",
		"請求書の発行":        "請求書の発行",
		"facture":       "factur",
	} {
		if got := loose(w); got != want {
			t.Errorf("loose(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestRussianStem checks the Snowball stems a Russian glossary word is
// matched by: each starts the word's other cases and persons, and a stem
// of fewer than minStemRunes letters, or a phrase, is not one.
func TestRussianStem(t *testing.T) {
	for w, c := range map[string]struct {
		stem  string
		forms []string
	}{
		"жалоба":        {"жалоб", []string{"жалобу", "жалобы", "жалобой"}},
		"претензия":     {"претенз", []string{"претензию", "претензии"}},
		"доставка":      {"доставк", []string{"доставку", "доставки"}},
		"возврат":       {"возврат", []string{"возврата", "возвратом"}},
		"счёт":          {"счёт", nil},
		"иск":           {"", nil}, // too short
		"подать жалобу": {"", nil},
	} {
		got, ok := russianStem(w)
		if c.stem == "" {
			if ok {
				t.Errorf("russianStem(%q) = %q, want none", w, got)
			}
			continue
		}
		if !ok || got != c.stem {
			t.Errorf("russianStem(%q) = %q, %v, want %q", w, got, ok, c.stem)
		}
		for _, f := range c.forms {
			if !strings.HasPrefix(f, got) {
				t.Errorf("russianStem(%q) = %q does not start %q", w, got, f)
			}
		}
	}
	g := &glossary{lines: map[string][]glossLine{}}
	if err := g.read("ru.tsv", []byte("complaint\tжалоба; претензия\n")); err != nil {
		t.Fatal(err)
	}
	if err := g.read("pt.tsv", []byte("complaint\treclamação\n")); err != nil {
		t.Fatal(err)
	}
	want := []glossTerm{{"жалоб", langRU}, {"претенз", langRU}, {"reclamaç", langPT}}
	if got := g.of("complaint"); !slices.Equal(got, want) {
		t.Errorf("of(complaint) = %v, want %v: Russian words stemmed, the others loose", got, want)
	}
}

// TestGlossarySelection checks that a catalog written in English alone
// is found from tasks in the other languages through the glossary's
// words for its keywords, and that Capability.Glossary lists them.
func TestGlossarySelection(t *testing.T) {
	catalog := `tools:
  - name: printer_admin
    description: Manages the office printers and their print queues.
    keywords: [printer, toner, print queue]
  - name: backup_restore
    description: Brings back a deleted or overwritten document from the nightly copies.
    keywords: [backup, restore, recover]
  - name: room_booking
    description: Books meeting rooms and shows which ones are free.
    keywords: [meeting room, booking, reserve]
  - name: expense_claim
    description: Files and checks an employee's expense claims and receipts.
    keywords: [expense, receipt, reimbursement]
  - name: complaints
    description: Records a customer's complaint and tracks it to a resolution.
    keywords: [complaint, grievance]
`
	s := inlineSetup(t, catalog)
	if g := s.Tools[0].Glossary(); !slices.Contains(g, "drucker") || !slices.Contains(g, "打印机") {
		t.Errorf("printer_admin: glossary words %q, want drucker and 打印机 among them", g)
	}
	wantPicks(t, &Assembler{Setup: s}, []pickCase{
		{"Der Drucker im zweiten Stock zieht kein Papier mehr ein", "act", "printer_admin"},
		{"三楼的打印机一直卡纸，帮忙处理一下", "act", "printer_admin"},
		{"Восстанови вчерашнюю версию таблицы с отчётом, я её затёр", "act", "backup_restore"},
		{"Reserva una sala de reuniones para el jueves a las diez", "act", "room_booking"},
		{"来週の会議室を予約してください", "act", "room_booking"},
		{"Je n'arrive pas à joindre mes reçus à ma note de frais", "plan", "expense_claim"},
	})
	// A Russian word in another case than the glossary's ("трата",
	// "жалоба") names its tool's concept.
	for task, want := range map[string]string{
		"Внеси трату на такси, чек приложу позже": "#expense_claim",
		"Клиент недоволен, заведи жалобу":         "#complaints",
	} {
		if got := s.Concepts.ofTask(task); !slices.Contains(got, want) {
			t.Errorf("%q: concepts %q, want %s among them", task, got, want)
		}
	}
}

// BenchmarkReadGlossary measures reading the built-in glossary, which a
// process does once, on its first setup with keyword concepts. Target:
// under 10 ms, a fifth of the 50 ms a CLI assembly may take.
func BenchmarkReadGlossary(b *testing.B) {
	names, err := fs.Glob(defaults, "defaults/glossary/*.tsv")
	if err != nil || len(names) == 0 {
		b.Fatal("no glossary files", err)
	}
	var data [][]byte
	for _, n := range names {
		d, err := defaults.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readGlossary(names, data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGlossConcepts checks that a setup's own concept written in ASCII
// alone takes the glossary's words, and that one written in its users'
// languages is left as written.
func TestGlossConcepts(t *testing.T) {
	extra := map[string][]string{
		"refund":   {"refund", "money back"},
		"shipment": {"parcel", "colis", "快递"},
	}
	glossed, err := glossConcepts(extra)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"reembols", "退款"} {
		if got := glossWords(glossed["refund"]); !slices.Contains(got, w) {
			t.Errorf("refund: glossary words %q, want %q among them", got, w)
		}
	}
	if got, ok := glossed["shipment"]; ok {
		t.Errorf("shipment: glossary words %v, want none: its words are written in its users' languages", got)
	}
	catalog := `tools:
  - name: issue_refund
    description: Give an order's money back to the original payment method.
    keywords: [refund]
  - name: track_parcel
    description: Tell where a parcel is.
    keywords: [parcel, tracking]
concepts:
  refund: [refund, money back]
`
	a := &Assembler{Setup: inlineSetup(t, catalog)}
	sel, err := a.Select(context.Background(), Request{Task: "Bitte die Erstattung für Bestellung 4411 auslösen", Mode: "act"})
	if err != nil {
		t.Fatal(err)
	}
	if got := picked(sel); !slices.Contains(got, "issue_refund") || !slices.Contains(sel.Concepts, "refund") {
		t.Errorf("picked %v (concepts %q), want issue_refund, through the concept refund", got, sel.Concepts)
	}
}
