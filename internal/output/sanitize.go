package output

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text that other people wrote (object names, file names, paths, status messages, errors) is
// printed to terminals and to CI logs. Raw, a newline forges an output line, an ANSI escape
// rewrites the screen, a bidi override reorders what is shown, and a line GitHub Actions reads as
// a workflow command (`::error::…`, `##[error]…`) turns into an annotation, a log group or a
// mask. Sanitize escapes one field; Clean guards a whole document. Every printer writes through
// them; json and yaml escape control characters by construction.

// palette is the set of SGR sequences Palette writes; Clean keeps exactly these when colour is on.
var palette = []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m"}

// Sanitize returns s with every character that could change what a terminal or a CI log shows
// escaped Go-style: C0 and C1 controls including newline, carriage return, tab and ESC (`\n`,
// `\x1b`, `\u0085`), Unicode format characters such as bidi overrides and zero-width spaces
// (`\u202e`), line and paragraph separators, and bytes that are not UTF-8 (`\xff`). Printable
// text, including backslashes, is unchanged, so sanitised text is still readable.
func Sanitize(s string) string {
	return escape(s, false, false)
}

// Clean returns a whole printed document safe to write: like Sanitize but keeping newlines, and,
// when p is on, the colours Palette writes; then no line may start, after any leading space, with
// `::`, nor contain `##[`, the two forms GitHub Actions reads as workflow commands. Such a line
// is prefixed with a backslash (`\::error::…`) and `##[` becomes `#\#[`.
func Clean(text string, p Palette) string {
	text = escape(text, true, p.On)
	if !strings.Contains(text, "::") && !strings.Contains(text, "##[") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(l, "##[", `#\#[`)
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
			l = `\` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// WriteClean writes Clean(text, p) to w.
func WriteClean(w io.Writer, text string, p Palette) error {
	_, err := io.WriteString(w, Clean(text, p))
	return err
}

// escape is Sanitize with two exceptions a document needs: its own newlines and its colours.
func escape(s string, keepNewline, keepColor bool) string {
	if isClean(s, keepNewline) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if keepColor && s[i] == 0x1b {
			if seq := paletteAt(s[i:]); seq != "" {
				b.WriteString(seq)
				i += len(seq)
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewline:
			b.WriteByte('\n')
		case !unsafeRune(r):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// isClean is the fast path: most text has nothing to escape.
func isClean(s string, keepNewline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && (c != '\n' || !keepNewline)) {
			return isCleanSlow(s, keepNewline)
		}
	}
	return true
}

func isCleanSlow(s string, keepNewline bool) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if unsafeRune(r) && (r != '\n' || !keepNewline) {
			return false
		}
	}
	return true
}

// unsafeRune reports a character that controls rather than shows: C0, DEL, C1, a format
// character (bidi overrides and isolates, zero-width characters, the BOM), or a line or
// paragraph separator.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// paletteAt returns the palette sequence s starts with, or "".
func paletteAt(s string) string {
	for _, seq := range palette {
		if strings.HasPrefix(s, seq) {
			return seq
		}
	}
	return ""
}
