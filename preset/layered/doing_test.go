package layered

import (
	"strings"
	"testing"
)

// TestModeAsksToDo holds the mode of tasks that ask for something to be
// done to a record, at a desk rather than in a repository, while they
// look something up first or ask as a question; and of tasks whose
// verb of doing is a noun, a third person, or asked about, which stay
// as they were.
func TestModeAsksToDo(t *testing.T) {
	s := evalSetup(t)
	for _, tc := range []struct {
		task, mode, why string
	}{
		{"Customer says she was charged twice for March. Find her account and refund the duplicate charge.", "act", `"refund"`},
		{"Tu peux prolonger le séjour de M. Garnier jusqu'à jeudi ? Même chambre si c'est possible.", "act", `"prolonger"`},
		{"Pode tirar o Paraguai da lista de países de alto risco? O jurídico já aprovou.", "act", `"tirar"`},
		{"Найди договор поставки с ООО «Северсталь-Снаб» и поставь напоминание за 60 дней до окончания", "act", `"поставь"`},
		{"Finde die offenen Rechnungen von Schreiner GmbH und schick ihnen eine zweite Mahnung", "act", `"schick"`},
		{"1栋楼下住户反映楼上半夜跳绳很吵，记一下投诉，顺便查查楼上租的是谁", "act", `"记一下"`},
		{"先月のクレーム一覧を見て、対象のお客様に案内を送っておいてください", "act", `"送って"`},
		// A noun, a third person, a verb after "before" or one asked
		// about: no request to do it.
		{"Order 448213 still shows processing after two weeks, can you see what's going on?", "plan", ""},
		{"Find the refund request for booking 4471 and see who approved it", "plan", ""},
		{"Necesito ver cómo está armada la consulta del listado de clientes: ahora devuelve 40k filas de golpe.", "plan", ""},
		{"Quais arquivos tem na pasta scripts/? Quero decidir quais a gente pode apagar.", "plan", ""},
		{"Pode dar uma olhada no balancete de junho antes de mandar pra auditoria?", "plan", ""},
		{"iOS 17.0 上点推送通知打不开对应的页面，帮我看看是在哪里处理的", "plan", ""},
	} {
		mode, why, err := inferMode(s, Request{Task: tc.task})
		if err != nil {
			t.Fatal(err)
		}
		if mode != tc.mode || tc.why != "" && !strings.Contains(why, tc.why) {
			t.Errorf("%q: mode %s (%s), want %s (%s)", tc.task, mode, why, tc.mode, tc.why)
		}
	}
}

// BenchmarkInferModeDesk infers the mode of desk tasks that look
// something up or ask a question, the rules that read asksToDo, in six
// languages: the whole of inferMode, most of it the task's concepts.
// Target: < 250 µs a task (183 µs at 46f1cc7, before asksToDo).
func BenchmarkInferModeDesk(b *testing.B) {
	benchmarkInferMode(b, evalSetup(b), "")
}

// deskTasks are desk tasks in six languages that look something up or
// ask a question: those the mode benchmarks infer.
var deskTasks = []string{
	"Customer says she was charged twice for March. Find her account and refund the duplicate charge.",
	"Tu peux prolonger le séjour de M. Garnier jusqu'à jeudi ? Même chambre si c'est possible.",
	"Pode dar uma olhada no balancete de junho antes de mandar pra auditoria?",
	"Найди договор поставки с ООО «Северсталь-Снаб» и поставь напоминание за 60 дней до окончания",
	"Finde die offenen Rechnungen von Schreiner GmbH und schick ihnen eine zweite Mahnung",
	"1栋楼下住户反映楼上半夜跳绳很吵，记一下投诉，顺便查查楼上租的是谁",
}

// benchmarkInferMode infers the mode of deskTasks with s, each reason
// starting with reason, and reports the time a task.
func benchmarkInferMode(b *testing.B, s *Setup, reason string) {
	b.ReportAllocs()
	for b.Loop() {
		for _, task := range deskTasks {
			if _, why, err := inferMode(s, Request{Task: task}); err != nil || !strings.HasPrefix(why, reason) {
				b.Fatal(why, err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(deskTasks)), "µs/task")
}
