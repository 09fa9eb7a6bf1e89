package layered

import (
	"regexp"

	"github.com/tessera-dev/tessera/embed"
)

// The verbs of doing something to a record, for a task's mode. The
// concepts of acting (actConcepts) are a software agent's: an edit, a
// commit, a dependency. A desk's agent is asked to book, refund, send,
// log, block or reschedule, and a task that asks for that, while it
// also finds or looks at something ("find her account and refund the
// duplicate charge", "посмотри, сколько за неделю, и отправь"), or asks
// politely as a question ("tu peux prolonger le séjour de M. Garnier
// jusqu'à jeudi ?"), is to be acted on, not planned. asksToDo reads
// those verbs: in English only where a clause opens with one (after the
// words that ask politely), since most of them are nouns too ("the
// refund", "a booking"); in the other languages their imperatives
// anywhere (few of which are nouns), and their infinitives when the
// task asks for something to be done ("pode tirar…", "kannst du den
// Treiber neu verteilen?"); in Chinese and Japanese the phrases that
// ask for it.

// doVerbsEnglish open a clause that asks for something to be done.
var doVerbsEnglish = wordsOf("book", "rebook", "reserve", "cancel", "refund", "reimburse", "send", "resend", "email", "text",
	"notify", "remind", "log", "register", "enrol", "enroll", "record", "add", "remove", "update", "change", "move",
	"reschedule", "schedule", "assign", "allocate", "issue", "reissue", "raise", "close", "approve", "reject", "decline",
	"waive", "credit", "charge", "pay", "transfer", "block", "bar", "suspend", "freeze", "unfreeze", "unblock", "reset",
	"restore", "reactivate", "activate", "deactivate", "upgrade", "downgrade", "renew", "extend", "order", "reorder",
	"ship", "dispatch", "collect", "print", "publish", "post", "upload", "submit", "put", "mark", "flag", "escalate",
	"forward", "arrange", "replace", "swap", "return", "grant", "revoke", "release", "file", "chase", "contact", "call",
	"ring", "give", "offer", "apply", "switch", "port", "draft", "write", "reply", "respond", "invite", "enter", "sign",
	"set", "top", "void", "rebill", "redeliver", "deliver", "hold", "pause", "resume", "unlock", "lock")

// leadWords may stand before a clause's first verb, in English,
// Portuguese, Spanish or French: the words that ask politely, those that
// join one clause to another, and the pronouns a verb's object may be
// put before it as ("me manda o link", "tu peux les transmettre").
var leadWords = wordsOf("and", "then", "also", "just", "so", "asap", "kindly", "pse", "please", "pls", "plz",
	"can", "could", "would", "will", "you", "u", "hey", "hi", "quick", "quickly", "ok", "okay", "go", "ahead", "need", "to",
	"e", "depois", "também", "já", "pode", "podes", "você", "voce", "consegue", "por", "favor", "pfv", "me", "lhe", "nos",
	"te", "então", "y", "luego", "después", "ya", "puedes", "podrías", "porfa", "le", "les", "oye",
	"et", "puis", "ensuite", "aussi", "peux", "pourrais", "tu", "vous", "pouvez", "stp", "svp", "merci", "de", "lui",
	"leur", "la")

// doImperatives are imperatives of doing something in Portuguese,
// Spanish, French, German and Russian, as embed.Words reads them, by
// language: many are words of another language too (the French
// "change", the Portuguese "remove").
var doImperatives = map[langSet]wordSet{
	langPT: wordsOf(
		"manda", "mande", "envia", "envie", "abre", "abra", "cadastra", "cadastre", "registra", "registre", "agende",
		"marque", "reserve", "cancela", "cancele", "estorna", "estorne", "reembolsa", "reembolse",
		"bloqueia", "bloqueie", "desbloqueia", "desbloqueie", "libera", "libere", "troque", "muda", "mude",
		"transfere", "transfira", "coloca", "coloque", "bota", "lança", "lance", "emite", "emita", "aprova", "aprove",
		"publica", "publique", "imprime", "imprima", "atualiza", "atualize", "apaga", "apague", "remove", "remova",
		"adiciona", "adicione", "inclui", "inclua", "avisa", "avise", "notifica", "notifique", "encaminha", "encaminhe",
		"faça", "gera", "gere", "solicita", "solicite", "providencia", "providencie", "tira", "tire", "pague",
		"renova", "renove", "prorroga", "prorrogue", "suspende", "suspenda", "reativa", "reative", "lembra", "lembre",
		"responde", "responda", "escreve", "escreva", "liga", "ligue", "põe", "ponha", "anota", "anote",
	),
	langES: wordsOf(
		"abre", "manda", "cancela", "registra", "reembolsa", "publica", "imprime", "emite",
		"envía", "envíe", "enviale", "mándale", "mándalo", "registre", "resérvale", "reservale", "cancele", "reembolse",
		"devuelve", "devuelva", "bloquea", "bloquee", "desbloquea", "cambia", "cambie", "cámbiale", "mueve", "mueva",
		"transfiere", "pon", "ponle", "ponga", "añade", "añada", "agrega", "agregue", "quita", "quite", "elimina", "elimine",
		"borra", "borre", "actualiza", "actualice", "aprueba", "apruebe", "avisa", "avísale", "inscribe", "inscriba",
		"tramita", "tramite", "gestiona", "gestione", "sube", "súbelo", "súbelos", "saca", "sácalos", "pásalo", "pásale",
		"programe", "asigna", "asigne", "crea", "cree", "genera", "genere", "abona", "abone", "apunta", "apunte",
		"recuérdale", "renueva", "renueve", "prorroga", "suspende", "reactiva", "reactive", "contesta", "contesta",
		"responde", "llama", "llámale", "dale", "haz", "hazle",
	),
	langFR: wordsOf(
		"envoie", "envoyez", "ouvre", "ouvrez", "crée", "créez", "enregistre", "enregistrez", "inscris", "inscrivez",
		"réserve", "réservez", "annule", "annulez", "rembourse", "remboursez", "bloque", "bloquez", "débloque", "débloquez",
		"change", "changez", "modifie", "modifiez", "déplace", "déplacez", "décale", "décalez", "transfère", "transférez",
		"transmets", "transmettez", "mets", "mettez", "ajoute", "ajoutez", "supprime", "supprimez", "retire", "retirez",
		"publie", "publiez", "imprime", "imprimez", "préviens", "prévenez", "relance", "relancez", "rappelle", "rappelez",
		"programmez", "attribue", "attribuez", "assigne", "assignez", "émets", "émettez", "valide", "validez",
		"approuve", "approuvez", "applique", "appliquez", "commandez", "passez", "fais", "faites",
		"réglez", "prolonge", "prolongez", "renouvelle", "renouvelez", "résilie", "résiliez", "réponds", "répondez",
		"écris", "écrivez", "notez", "suspends", "suspendez", "réactive", "réactivez", "génère", "générez",
	),
	langDE: wordsOf(
		"schick", "schicke", "schickt", "sende", "buche", "reservier", "reserviere", "stornier", "storniere", "erstatte",
		"leg", "lege", "trag", "trage", "sperr", "sperre", "entsperr", "entsperre", "setz", "setze", "verschieb", "verschiebe",
		"meld", "melde", "informier", "informiere", "erinner", "erinnere", "bestell", "bestelle", "drucke",
		"veröffentliche", "lösch", "lösche", "änder", "ändere", "aktualisiere", "stell", "stelle", "gib", "genehmige",
		"überweise", "zahle", "kündige", "verlängere", "schreib", "schreibe", "antworte", "ruf", "mach", "mache",
		"lad", "lade", "leite", "ordne", "vergib", "vergebe", "erfasse", "hinterleg", "hinterlege",
	),
	langRU: wordsOf(
		"отправь", "отправьте", "пришлите", "оформи", "оформите", "заведи", "заведите", "запиши", "запишите",
		"зарегистрируй", "зарегистрируйте", "забронируй", "забронируйте", "отмени", "отмените", "верни", "верните",
		"заблокируй", "заблокируйте", "разблокируй", "разблокируйте", "поменяй", "поменяйте", "измени", "измените",
		"перенеси", "перенесите", "назначь", "назначьте", "выстави", "выставьте", "добавь", "добавьте", "удали", "удалите",
		"убери", "уберите", "поставь", "поставьте", "внеси", "внесите", "обнови", "обновите", "напомни", "напомните",
		"уведоми", "уведомите", "сообщи", "сообщите", "передай", "передайте", "перешли", "перешлите", "опубликуй",
		"распечатай", "начисли", "начислите", "спиши", "спишите", "переведи", "переведите", "продли", "продлите",
		"подключи", "подключите", "отключи", "отключите", "восстанови", "восстановите", "сбрось", "сбросьте", "выдай",
		"выдайте", "закажи", "закажите", "оплати", "оплатите", "согласуй", "утверди", "утвердите", "сделай", "сделайте",
		"организуй", "организуйте", "ответь", "ответьте", "напиши", "напишите", "позвони", "позвоните", "возмести",
		"верните", "оформите", "пополни", "замени", "замените", "закрой", "закройте",
	),
}

// doInfinitives are infinitives of doing something, by language,
// which ask for it when the task asks for something to be done
// (requestCues).
var doInfinitives = map[langSet]wordSet{
	langPT: wordsOf("enviar", "mandar", "abrir", "cadastrar", "registrar", "agendar", "marcar", "reservar", "cancelar", "estornar",
		"reembolsar", "bloquear", "desbloquear", "liberar", "trocar", "mudar", "transferir", "colocar", "lançar", "emitir",
		"aprovar", "publicar", "imprimir", "atualizar", "apagar", "remover", "adicionar", "incluir", "avisar", "notificar",
		"encaminhar", "tirar", "gerar", "renovar", "prorrogar", "suspender", "reativar", "devolver", "pagar"),
	langES: wordsOf("enviar", "mandar", "abrir", "registrar", "agendar", "reservar", "cancelar", "reembolsar", "bloquear",
		"desbloquear", "transferir", "emitir", "publicar", "imprimir", "renovar", "prorrogar", "suspender", "reactivar",
		"devolver", "cambiar", "mover", "poner", "añadir", "quitar", "eliminar", "actualizar", "aprobar", "tramitar",
		"asignar", "programar", "pagar", "avisar", "notificar"),
	langFR: wordsOf("envoyer", "ouvrir", "créer", "enregistrer", "inscrire", "réserver", "annuler", "rembourser", "bloquer",
		"débloquer", "changer", "modifier", "déplacer", "décaler", "transférer", "transmettre", "mettre", "ajouter",
		"supprimer", "retirer", "publier", "prévenir", "relancer", "rappeler", "attribuer", "émettre", "valider",
		"approuver", "appliquer", "commander", "régler", "prolonger", "renouveler", "résilier",
		"rassembler", "occuper"),
	langDE: wordsOf("schicken", "senden", "buchen", "reservieren", "stornieren", "erstatten", "anlegen", "eintragen",
		"sperren", "entsperren", "verschieben", "melden", "informieren", "erinnern", "bestellen", "drucken",
		"veröffentlichen", "löschen", "ändern", "aktualisieren", "einstellen", "freigeben", "genehmigen", "überweisen",
		"kündigen", "verlängern", "wiederherstellen", "zurücksetzen", "einplanen", "hochladen", "weiterleiten",
		"zuweisen", "ausstellen", "gutschreiben", "verteilen", "erfassen", "zurückerstatten"),
	langRU: wordsOf("отправить", "оформить", "завести", "записать", "забронировать", "отменить", "вернуть",
		"заблокировать", "поменять", "изменить", "перенести", "назначить", "выставить", "добавить", "удалить",
		"поставить", "внести", "обновить", "напомнить", "продлить", "подключить", "отключить", "восстановить",
		"сбросить", "выдать", "оплатить"),
}

// doPhrases ask for something to be done in Chinese or Japanese.
var doPhrases = cuesOf(
	"帮我订", "帮他订", "帮她订", "预订", "预约", "发给", "发个", "发一", "提醒", "退款", "退给", "退还",
	"取消", "登记", "记一下", "记录一下", "录入", "安排", "办理", "办一下", "开通", "冻结", "解冻", "锁定", "解锁", "更换",
	"换成", "改成", "改到", "调到", "转给", "转到", "转交", "挪到", "交上去", "上传", "打印", "开具", "补发",
	"补开", "续开", "续费", "延期", "延长", "升级", "降级", "加上", "添加", "删掉", "删除", "移除", "停掉", "暂停", "恢复",
	"重置", "报修", "派人", "派单", "下单", "订购", "处理一下", "给他补", "给她补",
	"予約して", "予約を", "送って", "送付", "送信して", "連絡して", "連絡を", "登録して", "登録を", "キャンセルして",
	"取り消して", "返金して", "返金を", "手配して", "手配を", "変更して", "更新して", "発行して", "発行を", "起票",
	"作成して", "追加して", "削除して", "停止して", "止めて", "再開して", "復旧して", "再設定", "リセットして", "移して",
	"振り替えて", "延長して", "承認して", "承認しちゃって", "申請して", "申し込んで", "受付をして", "受け付けて",
	"対応して", "対応をお願い", "処理して", "記録して", "入力して", "設定して", "交換して", "印刷して", "公開して",
	"投稿して", "通知して", "案内して", "しといて", "しておいて", "をお願いします",
)

// wordSet is a set of words as embed.Words reads them.
type wordSet map[string]bool

// wordsOf is the set of words, each read as embed.Words reads it: lower
// case, accents folded.
func wordsOf(words ...string) wordSet {
	out := make(wordSet, len(words))
	for _, p := range words {
		if w := embed.Words(p); len(w) == 1 {
			out[w[0]] = true
		}
	}
	return out
}

// clauseBreak ends a clause.
var clauseBreak = regexp.MustCompile(`[.;:!?\n,()]+`)

// asksToDo reports whether task asks for something to be done to a
// record, and the verb or phrase that says so ("" when it does not).
// request is whether the task asks politely for something to be done
// (requestCues). The task's language (taskLanguage) says which verbs
// are read; a task whose language is unknown is read for all of them.
func asksToDo(task string, words []string, request bool) string {
	lang := taskLanguage(task, words)
	switch lang {
	case langZH, langJA:
		return cue(task, words, doPhrases)
	case langDE, langRU:
		// Their imperatives are no other form of the verb: anywhere.
		for _, w := range words {
			if doImperatives[lang][w] || request && doInfinitives[lang][w] {
				return w
			}
		}
		return ""
	}
	// In English, Portuguese, Spanish and French a verb asks for
	// something where it opens a clause: the Spanish and Portuguese
	// imperative is also the verb's third person ("ahora devuelve 40k
	// filas", "ninguém lhe responde"), and most English ones are nouns.
	verbAt := func(cw []string, i int) bool {
		if lang == 0 || lang == langEN {
			if englishVerbAt(cw, i) {
				return true
			}
		}
		for _, l := range []langSet{langPT, langES, langFR} {
			if (lang == 0 || lang == l) && (doImperatives[l][cw[i]] || request && doInfinitives[l][cw[i]]) {
				return true
			}
		}
		return false
	}
	for _, clause := range clauseBreak.Split(task, -1) {
		cw := embed.Words(clause)
		i := 0
		for i < len(cw) && leadWords[cw[i]] {
			i++
		}
		if i < len(cw) && verbAt(cw, i) {
			return cw[i]
		}
		// "… and refund the duplicate charge": a verb after "and" or
		// "then" opens a clause of its own.
		for j := i + 1; j+1 < len(cw); j++ {
			if joinWords[cw[j]] && verbAt(cw, j+1) {
				return cw[j+1]
			}
		}
	}
	return ""
}

// joinWords join one clause to the next: "and", "then".
var joinWords = wordsOf("and", "then", "e", "depois", "y", "luego", "et", "puis", "ensuite")

// notObject are words that follow a noun, not a verb asking for
// something: "Order 448213 still shows processing", "Call from Mrs
// Hughes", "Email is down".
var notObject = wordsOf("from", "of", "is", "was", "are", "were", "has", "had", "for", "on", "still", "says", "said")

// englishVerbAt reports whether words[i] is one of doVerbsEnglish, read
// as a verb: not followed by a number or by a word that follows a noun.
func englishVerbAt(words []string, i int) bool {
	if !doVerbsEnglish[words[i]] {
		return false
	}
	if i+1 < len(words) {
		next := words[i+1]
		if notObject[next] || next[0] >= '0' && next[0] <= '9' {
			return false
		}
	}
	return true
}
