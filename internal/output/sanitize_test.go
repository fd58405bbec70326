package output

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "persistentvolumeclaims/data -n prod", "persistentvolumeclaims/data -n prod"},
		{"newline", "data\n::error::pwned", `data\n::error::pwned`},
		{"carriage return", "ok\rSAFE", `ok\rSAFE`},
		{"ansi", "\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"c1 csi and nel", "a\u009b31mb\u0085c", `a\u009b31mb\u0085c`},
		{"bidi override", "safe\u202eyaml.exe", `safe\u202eyaml.exe`},
		{"zero width", "a\u200bb\ufeff", `a\u200bb\ufeff`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid utf8", "a\xffb", `a\xffb`},
		{"tab and nul", "a\tb\x00", `a\tb\x00`},
		{"unicode kept", "backups.velero.io → ✅ ⚠️ Ünïcödé", "backups.velero.io → ✅ ⚠️ Ünïcödé"},
		{"backslash kept", `jsonpath={.a\.b}`, `jsonpath={.a\.b}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestClean(t *testing.T) {
	on := Palette{On: true}
	for _, tc := range []struct {
		name, in string
		p        Palette
		want     string
	}{
		{"keeps lines", "a\nb\n", Palette{}, "a\nb\n"},
		{"workflow command line", "x\n::error file=a::pwned\n", Palette{}, "x\n\\::error file=a::pwned\n"},
		{"indented workflow command", "    ::add-mask::x\n", Palette{}, "\\    ::add-mask::x\n"},
		{"unicode space before it", "\u00a0::warning::x", Palette{}, "\\\u00a0::warning::x"},
		{"legacy form anywhere", "name ##[error]x\n", Palette{}, "name #\\#[error]x\n"},
		{"colons later are fine", "a::b\n", Palette{}, "a::b\n"},
		{"palette kept when on", on.Bad("x") + "\x1b[2J", on, "\x1b[31mx\x1b[0m\\x1b[2J"},
		{"palette escaped when off", on.Bad("x"), Palette{}, `\x1b[31mx\x1b[0m`},
		{"cr is not a line", "a\r::error::x", Palette{}, `a\r::error::x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clean(tc.in, tc.p); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestRenderEscapesNodeText(t *testing.T) {
	root := &Node{}
	root.Add("kustomization x\n::error::forged\x1b[2J").Add("child\u202e")
	root.Add("::notice::at the margin")
	var sb strings.Builder
	if err := root.Render(&sb, Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "kustomization x\\n::error::forged\\x1b[2J\n└── child\\u202e\n\\::notice::at the margin\n"
	if sb.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", sb.String(), want)
	}
}

// checkSafe is the property every printed document has: no character that controls rather
// than shows (newline aside, and the palette's colours when on), and no line GitHub Actions
// reads as a workflow command.
func checkSafe(t *testing.T, out string, allowNewline bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8 in %q", out)
	}
	for _, r := range out {
		if unsafeRune(r) && !(r == '\n' && allowNewline) {
			t.Fatalf("control character %U in %q", r, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") && allowNewline {
			t.Fatalf("workflow command line %q", l)
		}
		if strings.Contains(l, "##[") && allowNewline {
			t.Fatalf("legacy workflow command in %q", l)
		}
	}
}

// FuzzSanitize checks Sanitize and Clean on any input: the result is valid UTF-8 without
// control characters, Clean forges no workflow command, and printable input passes unchanged.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", "a\n::error::x", "\x1b[31m", "\u202e", "\xff", "  ::x", "##[group]", "\u0085::x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSafe(t, Sanitize(s), false)
		checkSafe(t, Clean(s, Palette{}), true)
		if Clean(Clean(s, Palette{}), Palette{}) != Clean(s, Palette{}) {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
		printable := true
		for _, r := range s {
			printable = printable && unicode.IsPrint(r)
		}
		if printable && utf8.ValidString(s) && Sanitize(s) != s {
			t.Fatalf("Sanitize changed printable %q to %q", s, Sanitize(s))
		}
	})
}
