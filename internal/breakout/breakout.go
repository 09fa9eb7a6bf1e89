// Package breakout holds texts that try to break out of where a prompt
// puts them: close a fence, start a line of their own, confuse a
// Markdown reader. The guard's fence tests and the presets' tests of
// inline values use the same texts.
package breakout

// Fence returns texts that try to close or confuse a fence, or to add a
// line to the text around them, in a new slice each call.
func Fence() []string {
	return []string{
		"", "\n", "\n\n", "plain", "~~~", "~~~\n", "~~~~", "a\n~~~\nb", "~~~text\ncode\n~~~\n",
		"```", "```\n~~~\n```", "````\n```", "``` ~~~", "~~~ ```",
		"   ~~~", "   ~~~~\n", "    ~~~", "\t~~~", " \t~~~", "  \t ~~~~", "\t\t~~~~~",
		"a\r~~~", "a\r~~~\rb", "\r~~~\r", "~~~\r", "\r", "\r\r", "a\r\n~~~\r\nb", "a\r\n", "\r\n~~~~\r\n",
		"a\r   ~~~\r", "\r\n\r", "x\r\r\n\n~~~",
		"~~~~~~~~~~~~~~~~", "~~~~~~~~~~~~~~~~~~~~~", "~\n~~\n~~~\n~~~~\n",
		"~~~  ", "~~~\t", "~~~ \r", "~~~\f", "~~~\v", "\f~~~", "\v~~~", "~~~\u00a0",
		"ü~~~", "\u00a0~~~", "\u200b~~~", "\u2028~~~", "a\u0085~~~",
		"nul\x00~~~", "\x00\n~~~\x00", "\xff\xfe\n~~~", "<!-- -->\n~~~", "> ~~~\n- ~~~\n1. ~~~",
		"    indented code\n~~~\n", "# heading\n~~~~\n***", "line\\\n~~~",
	}
}
