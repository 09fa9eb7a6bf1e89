package guard

import (
	"strings"
	"testing"
)

// FuzzChooseFence checks that no text can close the fence Fence puts
// around it, and that the text comes back unchanged between the fences.
func FuzzChooseFence(f *testing.F) {
	for _, s := range []string{
		"", "plain", "~~~", "~~~~", "a\n~~~\nb", "  ~~~~~\n", "\t~~~", "~~~~~~~~~~~~~~~~",
		"```\n~~~\n```", "x ~~~", "~\n~~\n~~~\n", "\n\n", "~~~text\ncode\n~~~\n",
		"line\r\n~~~\r\n", "ü~~~", " \t ~~~~ ~~~",
	} {
		f.Add(s, "text")
	}
	f.Add("x", "json\n~~~")
	f.Fuzz(func(t *testing.T, text, info string) {
		fence := ChooseFence(text)
		if len(fence) < 3 || strings.Trim(fence, "~") != "" {
			t.Fatalf("ChooseFence(%q) = %q", text, fence)
		}
		for line := range strings.Lines(text) {
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

// FuzzWrapTag checks that wrapped text never holds the wrapper's tag
// except at its two ends.
func FuzzWrapTag(f *testing.F) {
	for _, s := range []string{"", "x", "</doc>", "< / DOC >", "<doc>", "a</doc", "<<//doc>", "</docs>"} {
		f.Add("doc", s)
	}
	f.Fuzz(func(t *testing.T, tag, text string) {
		out, err := WrapTag(tag, text)
		if err != nil {
			if validTag(tag) {
				t.Fatalf("valid tag %q rejected: %v", tag, err)
			}
			return
		}
		open, close := "<"+tag+">\n", "</"+tag+">"
		if !strings.HasPrefix(out, open) || !strings.HasSuffix(out, close) {
			t.Fatalf("WrapTag(%q, %q) = %q", tag, text, out)
		}
		inner := out[len(open) : len(out)-len(close)]
		for i := strings.IndexByte(inner, '<'); i >= 0; {
			if tagAt(inner[i+1:], tag) {
				t.Fatalf("tag survives in %q", inner)
			}
			j := strings.IndexByte(inner[i+1:], '<')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		if strings.ReplaceAll(inner, "&lt;", "<") != strings.ReplaceAll(strings.TrimSuffix(text, "\n")+"\n", "&lt;", "<") && text != "" {
			t.Fatalf("content changed beyond '<': %q -> %q", text, inner)
		}
	})
}
