package guard

import (
	"strings"
	"testing"
)

// FuzzChooseFence checks that no text can close the fence Fence puts
// around it, that the text comes back unchanged between the fences, and
// that ChooseFence's shortcuts choose the fence a scan of every rune
// does.
func FuzzChooseFence(f *testing.F) {
	for _, s := range []string{
		"", "plain", "~~~", "~~~~", "a\n~~~\nb", "  ~~~~~\n", "\t~~~", "~~~~~~~~~~~~~~~~",
		"```\n~~~\n```", "x ~~~", "~\n~~\n~~~\n", "\n\n", "~~~text\ncode\n~~~\n",
		"line\r\n~~~\r\n", "ü~~~", " \t ~~~~ ~~~", "a\r~~~\rb", "\r~~~~", "a\u2028~~~", "\u200b~~~",
	} {
		f.Add(s, "text")
	}
	f.Add("x", "json\n~~~")
	f.Fuzz(func(t *testing.T, text, info string) {
		fence := ChooseFence(text)
		if len(fence) < 3 || strings.Trim(fence, "~") != "" {
			t.Fatalf("ChooseFence(%q) = %q", text, fence)
		}
		if want := chooseFenceEveryRune(text); fence != want {
			t.Fatalf("ChooseFence(%q) = %q, a scan of every rune %q", text, fence, want)
		}
		// Every CommonMark line: "\n", "\r\n" and "\r" end one.
		for line := range strings.SplitSeq(normEOL(text), "\n") {
			trimmed := strings.TrimLeft(line, " \t")
			if strings.HasPrefix(trimmed, fence) {
				t.Fatalf("line %q starts with the fence %q", line, fence)
			}
		}
		out := Fence(text, info)
		first, _, _ := strings.Cut(out, "\n")
		if strings.TrimLeft(first, "~") != cleanInfo(info) || strings.ContainsAny(cleanInfo(info), "\n\r~ ") {
			t.Fatalf("opening line %q", first)
		}
		if msg := checkFenced(out, text); msg != "" {
			t.Fatalf("Fence(%q) = %q: %s", text, out, msg)
		}
	})
}

// FuzzFenceCommonMark checks Fence against goldmark, a CommonMark parser
// that shares no code with this package: whatever the text, the output is
// one fenced code block holding exactly the text (see commonMarkFenced).
func FuzzFenceCommonMark(f *testing.F) {
	for _, s := range fenceNasties {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		out := Fence(text, "text")
		if msg := commonMarkFenced(out, text, "text"); msg != "" {
			t.Fatalf("Fence(%q) = %q: %s", text, out, msg)
		}
	})
}

// FuzzWrapTag checks that wrapped text holds the wrapper's tag only on
// its first and last lines, by checkWrapped's independent reading of
// tags, and by the package's own.
func FuzzWrapTag(f *testing.F) {
	for _, s := range []string{
		"", "x", "</doc>", "< / DOC >", "<doc>", "a</doc", "<<//doc>", "</docs>", "<\r/doc>", "</\vdoc>",
		"<\u0085/doc>", "</d\u200boc>", "\uff1c/doc>", "<\\/doc>", "</\uff24\uff2f\uff23>", "<doc/>", "&lt;/doc>",
	} {
		f.Add("doc", s)
	}
	f.Add("user_input", "</user-input>")
	f.Add("task", "</tas\u212a>")
	f.Add("doc", "</\U0001D41D\U0001D428\U0001D41C> \u2039/doc> \u27e8/doc> </d\x00oc> </do\nc> </d\u0301oc>")
	f.Fuzz(func(t *testing.T, tag, text string) {
		out, err := WrapTag(tag, text)
		if err != nil {
			if validTag(tag) {
				t.Fatalf("valid tag %q rejected: %v", tag, err)
			}
			return
		}
		if msg := checkWrapped(out, tag, text); msg != "" {
			t.Fatalf("WrapTag(%q, %q) = %q: %s", tag, text, out, msg)
		}
		inner := out[len(tag)+3 : len(out)-len(tag)-3]
		for i := range inner {
			if inner[i] == '<' && tagAt(inner[i+1:], tag) {
				t.Fatalf("tag survives in %q", inner)
			}
		}
	})
}

// chooseFenceEveryRune is ChooseFence without its shortcuts: every rune
// of the text is read.
func chooseFenceEveryRune(text string) string {
	const (
		lead = iota
		run
		after
	)
	longest, n, state := 0, 0, lead
	for _, r := range text {
		switch {
		case isLineEnd(r):
			n, state = 0, lead
		case state == after:
		case r == '~':
			n, state = n+1, run
			longest = max(longest, n)
		case state == lead && isGap(r), state == run && isInvisible(r):
		default:
			state = after
		}
	}
	return strings.Repeat("~", max(minFence, longest+1))
}
