package injection

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Concepts are what the n-gram model reads besides characters: a word
// of any of the supported languages is mapped to the idea it stands for
// ("senha", "contraseña", "Passwort", "密码" and "пароль" are all
// secret), and the model weighs those ideas and the pairs of them that
// occur close together. What it learns from an English attack ("don't
// mention it in the docs" is negation, telling and documentation) then
// carries to the same attack in Chinese ("不要写进文档") though no
// character of the two is shared. The table is part of the model: it
// is trained with it, so a change to it needs model.bin made again (see
// model_test.go).
//
// Each entry is a concept and its words. A word ending in * is a stem
// and matches every word it begins (by whole letters); any other word
// matches itself only. Words of Chinese and Japanese script match
// anywhere inside a run of such letters, longest first.
var conceptTable = [...]struct{ name, words string }{
	{"ignore", `ignor* disregard* forget* forgot* overlook* esquec* esqueç* desconsider* olvid* descart* oubli* vergiss* vergess* missacht* außer acht
		忽略 忽视 无视 不要理会 别理 忘记 忘掉 忘了 無視 忘れ 気にしない игнор* забуд* забыть* забыв* отбрось* проигнор*`},
	{"rules", `instruction* rule* guideline* polic* directive* guardrail* restriction* constraint* limit* prompt*
		instruç* instrucc* regra* diretriz* diretiv* restriç* regla* directriz* restricci* limitaci* limites
		consigne* règle* regle* directive* politique* anweisung* regel* vorgabe* richtlinie* einschränkung* beschränkung* grenzen
		指令 指示 规则 规定 限制 约束 策略 政策 守则 提示词 ルール 規則 制限 制約 ポリシー ガイドライン 指針 プロンプト
		инструкц* правил* указани* ограничени* политик* директив* промпт*`},
	{"prior", `previous* prior earlier above original* preceding anterior* acima precedent* précédent* antérieur* initial* ursprünglich* vorherig* bisherig* obig* früher*
		之前 以前 先前 上面 原来 原有 原先 此前 上述 これまで 上記 元の 先ほど 前述 предыдущ* прежн* ранее выше исходн* изначальн*`},
	{"secret", `secret* password* passwd passphrase* token* credential* apikey* api_key* id_rsa* id_ed25519* env dotenv pem private_key* privatekey*
		senha* segredo* credencia* chave* contraseña* contrasena* clave* secreto* credencial* passe jeton* identifiant* clé clef clés
		passwort* kennwort* geheim* zugangsdat* schlüssel* zugangsschlüssel*
		密码 密钥 秘钥 令牌 凭证 凭据 私钥 口令 secrets パスワード 秘密鍵 鍵 トークン 認証情報 シークレット 資格情報 暗証
		парол* секрет* токен* ключ* учетн* учётн* креды* кред*`},
	{"send", `send* sent post upload* forward* transmit* exfiltrat* leak* beacon* ping envi* mand* compartilh* encaminh* transmit* reenv* compart*
		envoi* envoy* transmet* partag* transfér* schick* send* übermittl* weiterleit* übertrag* hochlad*
		发送 发给 发到 传到 上传 转发 发我 寄给 回传 送信 送って 送る 転送 アップロード 共有して 送付
		отправ* пришл* присыл* перешл* пересыл* скинь* скинуть* слей* слить* переда*`},
	{"external", `external* outside third-party thirdparty partner* vendor* contractor* outsourc* extern* parceir* fornecedor* terceir* proveedor* socio* prestataire* partenaire* fournisseur* dienstleister* lieferant* dritt*
		外部 外包 合作方 第三方 供应商 对方 協力会社 外注 委託先 ベンダー 取引先 внешн* подрядчик* партнер* партнёр* сторонн* поставщик*`},
	{"net", `http https url* webhook* endpoint* curl wget nslookup dig dns requestbin* ngrok* pastebin* ip 链接 地址 回调 リンク ссылк* адрес*`},
	{"mail", `email* e-mail mail* correo* courriel* 邮件 邮箱 メール почт* письм* имейл* мейл*`},
	{"conceal", `hide* hidden conceal* quiet* quietly silent* secretly covert* mention* discreet* escond* ocult* silenc* calad* callad* mencion* mentionn* cach* dissimul* discrèt* discret*
		erwähn* versteck* verschweig* verheimlich* heimlich* 不要提 别提 隐藏 隐瞒 不要告诉 别告诉 悄悄 偷偷 保密 不要说 别说 言わない 伝えない 隠し 隠す 隠れ 内緒 こっそり 黙って 触れない 知らせない
		упомина* упомян* скрой* скрыв* скрыт* тайн* молч* незаметн* втихую тихо`},
	{"user", `user* operator* human* usuári* usuari* operador* utilisateur* opérateur* nutzer* benutzer* anwender* betreiber* 用户 使用者 操作员 人类 ユーザー 利用者 運営者 人間 пользовател* оператор* человек*`},
	{"doc", `doc docs documentation* readme* changelog* wiki* description* documenta* descriç* descripci* dokumentation* doku beschreibung* 文档 说明 描述 ドキュメント 文書 説明 記載 документац* описани* доку* ридми`},
	{"comment", `comment* coment* commentaire* kommentar* 注释 评论 留言 コメント 注記 комментари* коммент*`},
	{"skip", `skip* bypass* disable* circumvent* deactivat* pul* desativ* deslig* salt* omit* desactiv* deshabilit* saut* désactiv* contourn* outrepass* überspring* umgeh* deaktivier* abschalt* ausschalt*
		跳过 绕过 关闭 禁用 省掉 略过 スキップ 省略 無効 回避 飛ばし 外して пропуст* пропуск* обход* обойд* отключ* выключ* минуя`},
	{"test", `test* tests ci pipeline* lint* check* scan* teste* pruebas prueba* contrôle* prüf* 测试 单测 检查 流水线 テスト 検査 チェック パイプライン тест* проверк* пайплайн* линтер*`},
	{"review", `review* approv* revis* revisã* relecture* relire revue* überprüf* freigab* 评审 审查 审核 レビュー 承認 ревью* ревьюв* согласовани*`},
	{"auth", `auth* authentication* authoriz* login* signature* verif* 2fa mfa otp autentica* assinatura* firma* authentifi* anmeld* signatur* 鉴权 认证 登录 签名 校验 認証 ログイン 署名 検証 аутентиф* авториз* логин* подпис*`},
	{"security", `security safety sandbox* firewall* antivirus* segurança seguridad sécurité securite sicherheit* 安全 セキュリティ 安全性 безопасност* защит*`},
	{"push", `push* commit* merge* deploy* publish* pushe* empurr* publique* publiqu* veröffentlich* 推送 提交 合并 部署 上线 发布 直推 プッシュ コミット マージ デプロイ 公開 пуш* запуш* коммит* закоммит* мерж* влей* задеплой* деплой*`},
	{"prod", `main master prod production* live release* produç* producci* produktion* 生产 线上 正式环境 主分支 本番 リリース прод продакшн* продакшен* боев* релиз*`},
	{"admin", `admin* administrator* root sudo superuser* privilege* privileg* permission* elevated administrador* permiss* privilégi* privilégio* permiso* privilegio* administrateur* privilège* droits administrator* rechte berechtigung*
		管理员 权限 超级 提权 root权限 管理者 権限 特権 админ* администратор* права привилег* полномочи* рут*`},
	{"access", `access* acesso* acceso* accès zugriff* zugang* 访问 接入 アクセス доступ*`},
	{"grant", `grant* give* allow* enable* whitelist* allowlist* conced* liber* habilit* otorg* permit* accord* donn* octroy* autoris* gewähr* erteil* freischalt* erlaub*
		开通 授予 给予 赋予 开放 放行 加白 付与 与え 許可して 開放 выда* предостав* дай* открой* разреш*`},
	{"account", `account* conta* cuenta* compte* konto* 账号 帐号 账户 アカウント учётк* учетк* аккаунт* учетн* учётн*`},
	{"authority", `approved approval sign-off signoff authorized authorised manager* lead cto ciso cio boss head director* ceo aprov* autoriz* gerente* chefe* diretor* combinad* aprob* jefe* director* acordad* approuv* chef* directeur* dsi
		genehmig* freigegeben autorisier* leiter* vorgesetzt* abgesprochen abgestimmt einverstanden 批准 同意 授权 经理 领导 主管 老板 说好 负责人 总监 承認 了承 部長 上司 合意 責任者 課長
		одобр* соглас* директор* руководител* начальник* техдир* шеф*`},
	{"now", `now henceforth hereafter onward* onwards anymore agora doravante ahora adelante désormais dorénavant maintenant jetzt fortan künftig sofort ab
		从现在起 从现在开始 今后 此后 从此 以后 从今 今後 以降 これから 今から отныне теперь впредь сейчас`},
	{"agent", `assistant* agent* ai bot* chatbot* llm* model* copilot* assistente* agente* ia modelo* asistente* modèle* assistent* ki modell*
		助手 助理 智能体 代理 模型 机器人 アシスタント エージェント モデル ボット ассистент* агент* ии модел* бот* нейросет*`},
	{"persona", `mode* persona* role* pretend* roleplay* jailbreak* unrestricted* unfiltered* uncensored* unlimited* dan modo* papel finja* finge* fing* rol rôle personnage* semblant modus* rolle*
		模式 角色 扮演 假装 身份 越狱 モード 役割 ロール なりきり 演じ ふり 脱獄 режим* рол* притвор* персон* джейлбрейк*`},
	{"without", `without no none sem sin sans ohne 无需 不用 不需要 无须 无 没有 不必 なしで せず なし без`},
	{"neg", `not don't dont never não nao nunca no ne pas jamais nor ni nem weder nicht nie niemals kein* 不要 别 勿 绝不 不 決して ない な не нет никогда ни`},
	{"always", `always every each forever todo* toda* sempre siempre cada toujours chaque tous toutes immer jede* jeder* 每次 每个 总是 始终 永远 一律 毎回 常に 必ず 全て すべて всегда кажд* любой любые`},
	{"delete", `delete* remove* drop* wipe* purge* erase* truncat* rm apag* remov* exclu* delet* borr* elimin* supprim* effac* retir* lösch* entfern* 删除 删掉 移除 清空 删 削除 消して 消す 消去 удал* стер* снес* стирай*`},
	{"pass", `green pass passing succeed* verde vert grün 绿 成功 通过 緑 通る 成功 зелен* зелён* проход*`},
	{"exec", `execut* run exec eval* bash sh shell postinstall* preinstall* script* ejecut* exécut* execut* ausführ* 执行 运行 実行 走らせ выполн* запуст* исполн*`},
	{"public", `public* publicly público* pública* publique* öffentlich* 公开 公網 公開 публичн* открыт*`},
	{"direct", `direct* directly straight diretamente directamente directement direkt* 直接 径直 напрямую сразу прямо`},
	{"confirm", `confirm* ask* asking consult* confirm* pergunt* pregunt* demand* bestätig* frag* rückfrag* 确认 询问 请示 確認 聞か 尋ね 相談 подтвержд* подтверд* спрашива* спрос* уточн*`},
	{"system", `system sistema système systeme 系统 システム систем*`},
	{"universal", `universal* general* mestr* maestr* maître* maitre* generalpass* backdoor* magic 万能 通用 后门 マスター 裏口 バックドア универсал* мастер* бэкдор*`},
	{"header", `header* cabeçalho* cabecera* en-tête* entête* 请求头 头部 ヘッダー заголов* хедер*`},
	{"include", `add* include* append* insert* put paste* attach* adicion* inclu* coloq* coloc* insir* anex* añad* agreg* pon* adjunt* ajout* insér* mett* joign* füg* einfüg* hinzufüg* anhäng* beifüg*
		加上 添加 附上 加入 写进 写入 放进 放到 贴上 附在 追加 含め 入れ 貼り 付け 添付 記入 добав* встав* включ* прилож* допиш* впиш*`},
	{"value", `value* content* contents current valor* conteúdo* conteudo* atual actual contenido* valeur* contenu* actuel* wert* inhalt* aktuell* 值 内容 当前 現在 中身 значени* содержим* текущ*`},
	{"reader", `reading read ler lendo leer leyendo lire lisant lesen liest 读到 看到 阅读 読んだ 読む 読み込 読ん читающ* прочита* прочтё* прочте*`},
	{"whoever", `whoever anyone anybody quem quien quiconque wer 任何 谁 誰 кто любой`},
	{"important", `important* urgent* critical* immediately mandatory importante* urgente* crítico* critico* imediatamente inmediatamente immédiatement wichtig* dringend* sofort 重要 紧急 立即 马上 务必 必须 至急 重要 必ず 直ちに важн* срочн* немедленно обязательно`},
	{"file", `file* archivo* arquivo* fichier* datei* 文件 ファイル файл*`},
	{"ssh", `ssh aws gcp azure kube* kubeconfig* cloud* 云 クラウド облак*`},
	{"copy", `copy* dump* export* backup* exfil* copi* cópia* copia* respald* sauvegard* kopier* sicher* 复制 拷贝 导出 备份 转储 コピー エクスポート バックアップ ダンプ копир* скопир* выгруз* дамп* экспорт* бэкап*`},
	{"ticket", `ticket* jira issue* chamado* incidencia* billet* vorgang* 工单 チケット 問い合わせ тикет* заявк* обращени*`},
	{"obsolete", `obsolete* outdated deprecated invalid* void superseded replaced revoked draft* expired obsolet* inválid* invalid* rascunho* substituíd* revogad* borrador* sustituid* derogad* caduc* brouillon* remplacé* périmé* ungültig* veraltet* entwurf* ersetzt überholt* aufgehoben
		作废 失效 过时 无效 草稿 废弃 已废止 旧版 無効 古い 廃止 下書き 撤回 旧版 устарел* недействит* черновик* отменен* отменён* аннулир*`},
	{"nolonger", `longer anymore mais más plus mehr больше 不再 已经不 もう`},
	{"only", `only solely exclusively apenas somente só solo solamente únicamente unicamente uniquement seulement exclusivement nur ausschließlich lediglich 只 仅 只有 唯一 だけ のみ только лишь исключительно`},
	{"follow", `follow* obey* comply* heed* sig* segu* obedec* cumpr* suiv* suis fie obéi* respect* folge* befolg* richte* halte* 遵循 听从 照做 按照 服从 遵守 従 従って 守って следуй* следов* подчин* ориентир* слушай*`},
	{"start", `start* startup beginning initial* boot* início inicio comienzo arranque début démarrage anfang start-prompt 启动 开始时 一开始 最初 起動 開始時 запуск* начал* старт*`},
	{"envvar", `environment* printenv environ* getenv ambiente* entorno* umgebung* 环境变量 環境変数 окружени* переменн*`},
	{"debug", `debug* depura* débog* 调试 デバッグ отладк* дебаг*`},
	{"emergency", `emergenc* notfall* notfäll* urgence* emergênci* 应急 紧急情况 緊急 非常時 экстренн* аварийн*`},
	{"refuse", `refuse* decline* report* warn* alert* flag* recus* rechaz* negue* negar avis* alert* signal* ablehn* meld* verweiger* 拒绝 举报 报告 提醒 拒否 断って 断る 報告 通報 警告 откаж* отказ* сообщ* предупред*`},
	{"if", `if whenever se si quand lorsque wenn falls sobald 如果 若 一旦 要是 場合 なら たら если когда`},
	{"automated", `automat* autonom* tool tools crawler* scraper* parser* ferramenta* herramienta* outil* werkzeug* 工具 ツール 自动 自動 инструмент* автоматич* автомат*`},
	{"process", `process* handl* processa* procesa* traite* traitant verarbeit* bearbeit* auswert* 处理 処理 обрабатыва* обработ*`},
	{"hypothetical", `hypothetic* hypothetically imagine scenario* exercise* drill red-team redteam hipotét* hipotet* exercício* ejercicio* escenario* cenário* exercice* hypothétique* übung* hypothetisch* szenario* 假设 演练 假如 红队 仮に 演習 仮定 レッドチーム гипотетич* учени* упражнени* представь*`},
	{"note", `note notes nota notas remarque* hinweis* anmerkung* 备注 提示 注意 メモ 注記 примечани* заметк*`},
	{"hurry", `quick* asap hurry* rápido* rapido* vite dringend schnell* 赶 尽快 急 急ぎ 至急 срочно быстр*`},
}

// lexicon is conceptTable indexed for matching.
type lexicon struct {
	words map[string]uint8 // whole words, to their concept's index + 1
	// stems are the stems by their first stemKey bytes, longest first,
	// so that a word looks up one list and takes its most specific stem.
	stems   map[string][]stem
	stemKey int
	cjk     map[string]uint8 // words in Chinese or Japanese script
	cjkMax  int              // the longest of those, in runes
	// neg and without are the concepts "neg" and "without", index + 1:
	// both negate the concept after them.
	neg, without uint8
}

// stem is a stem of the lexicon and its concept's index + 1.
type stem struct {
	text string
	id   uint8
}

// builtinLexicon is conceptTable indexed, built once.
var builtinLexicon = sync.OnceValue(func() *lexicon {
	lx := &lexicon{words: map[string]uint8{}, stems: map[string][]stem{}, cjk: map[string]uint8{}}
	var stems []stem
	seen := map[string]bool{}
	for i, c := range conceptTable {
		id := uint8(i + 1)
		switch c.name {
		case "neg":
			lx.neg = id
		case "without":
			lx.without = id
		}
		for _, w := range strings.Fields(c.words) {
			switch r, _ := utf8.DecodeRuneInString(w); {
			case isCJK(r):
				if _, dup := lx.cjk[w]; !dup {
					lx.cjk[w] = id
				}
				lx.cjkMax = max(lx.cjkMax, utf8.RuneCountInString(w))
			case strings.HasSuffix(w, "*"):
				w = strings.TrimSuffix(w, "*")
				if !seen[w] {
					seen[w] = true
					stems = append(stems, stem{w, id})
				}
			default:
				if _, dup := lx.words[w]; !dup {
					lx.words[w] = id
				}
			}
		}
	}
	lx.stemKey = len(stems[0].text)
	for _, st := range stems {
		lx.stemKey = min(lx.stemKey, len(st.text))
	}
	// Longest first; among stems of one length, the table's order.
	slices.SortStableFunc(stems, func(a, b stem) int { return len(b.text) - len(a.text) })
	for _, st := range stems {
		k := st.text[:lx.stemKey]
		lx.stems[k] = append(lx.stems[k], st)
	}
	return lx
})

// isCJK reports whether r is a Han, Hiragana or Katakana letter.
func isCJK(r rune) bool {
	switch {
	case r < 0x3040:
		return false
	case r <= 0x30ff, r >= 0x3400 && r <= 0x4dbf, r >= 0x4e00 && r <= 0x9fff, r >= 0xf900 && r <= 0xfaff:
		return true // kana, the Han blocks of the Basic Multilingual Plane
	case r < 0x20000:
		return false
	}
	return unicode.Is(unicode.Han, r)
}

// isWordRune reports whether r belongs to a word the lexicon reads:
// a letter, a digit or an apostrophe of a contraction.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '\''
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// negBit marks a concept that a negation stands just before ("no
// desactivar el 2FA", "ne pas désactiver la vérification TLS"): a rule
// against an act names the act as an attack does, and this is what
// tells the two apart.
const negBit = 0x80

// negScope is how many words after a negation the concept it negates
// may stand: "don't ever disable", "no desactivar", "不要关闭".
const negScope = 3

// concepts appends to dst the concepts of text's words, in order, a
// concept repeated at once kept once. The first concept within negScope
// words after a negation is marked negated. text is lower-cased
// already.
func (lx *lexicon) concepts(dst []uint8, text string) []uint8 {
	word, negAt := 0, -negScope-1
	add := func(id uint8) {
		word++
		switch {
		case id == 0:
			return
		case id == lx.neg, id == lx.without:
			negAt = word
		case word-negAt <= negScope:
			id |= negBit
			negAt = -negScope - 1
		}
		if len(dst) == 0 || dst[len(dst)-1] != id {
			dst = append(dst, id)
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		cjk := isCJK(r)
		j := i
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r2) || isCJK(r2) != cjk {
				break
			}
			j += s2
		}
		if cjk {
			lx.cjkRun(text[i:j], add)
		} else {
			add(lx.word(strings.Trim(text[i:j], "'")))
		}
		i = j
	}
	return dst
}

// word is the concept of one word, or 0.
func (lx *lexicon) word(w string) uint8 {
	if id, ok := lx.words[w]; ok {
		return id
	}
	if len(w) < lx.stemKey {
		return 0
	}
	for _, st := range lx.stems[w[:lx.stemKey]] {
		n := len(st.text)
		if n <= len(w) && (n == len(w) || utf8.RuneStart(w[n])) && w[:n] == st.text {
			return st.id
		}
	}
	return 0
}

// cjkRun finds the lexicon's words in a run of Chinese or Japanese
// letters, longest first at each place, and passes their concepts on.
func (lx *lexicon) cjkRun(run string, add func(uint8)) {
	for i := 0; i < len(run); {
		end, found := i, uint8(0)
		j, n := i, 0
		for j < len(run) && n < lx.cjkMax {
			_, s := utf8.DecodeRuneInString(run[j:])
			j += s
			n++
			if id, ok := lx.cjk[run[i:j]]; ok {
				end, found = j, id
			}
		}
		if found != 0 {
			add(found)
			i = end
			continue
		}
		_, s := utf8.DecodeRuneInString(run[i:])
		i += s
	}
}

// conceptWindow is how far apart, in concepts, two concepts may be to
// count as a pair.
const conceptWindow = 6

// conceptCopies is how many buckets each concept and pair is hashed
// into; three did best on the training folds and on sets left out of
// training (more copies gain little on either).
const conceptCopies = 3

// appendConceptGrams appends to buf the buckets of the concepts of the
// readings vs and of the pairs of them within conceptWindow of each
// other (unordered, so that word order across languages does not
// matter). Each is hashed conceptCopies times, so that an idea weighs
// against a text's many n-grams as much as the training sets show it
// should.
func appendConceptGrams(bits uint8, vs []view, buf []uint32) []uint32 {
	lx := builtinLexicon()
	mask := uint32(1)<<bits - 1
	var seq [256]uint8
	for _, v := range vs {
		if len(buf) >= maxModelGrams {
			break
		}
		cs := lx.concepts(seq[:0], v.text)
		for i, a := range cs {
			for k := range conceptCopies {
				buf = append(buf, hashConcept(a, 0, k)&mask)
			}
			for _, b := range cs[i+1 : min(len(cs), i+1+conceptWindow)] {
				if a != b {
					for k := range conceptCopies {
						buf = append(buf, hashConcept(min(a, b), max(a, b), k)&mask)
					}
				}
			}
		}
	}
	return buf
}

// hashConcept hashes a concept (b 0) or a pair of concepts into the
// model's buckets, apart from the n-grams' hashes.
func hashConcept(a, b uint8, k int) uint32 {
	h := uint32(2166136261)
	for _, c := range [...]byte{'\x00', 'C', a, b, byte(k)} {
		h = (h ^ uint32(c)) * 16777619
	}
	return h * 16777619
}
