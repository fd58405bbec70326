// Package docexamples finds the invocations of the suite's plugins that docs/*.md shows, so each
// plugin's tests can parse them with the command's own flags and Validate: an example with a
// flag the command lacks, or a value it refuses, fails a test instead of a reader.
package docexamples

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// Example is one invocation a document shows.
type Example struct {
	File string // the document's name, e.g. "safe-retire.md"
	Line int
	Text string // the command line as written, from the plugin's name on
	// Args are the words after the plugin's name, up to the end of the command (a pipe, a
	// redirection, a comment, `;` or `&&`), split as a POSIX shell splits them.
	Args []string
	// Concrete is false for a synopsis or an elided example (one with `[…]` alternatives,
	// `<placeholders>`, `…` or `...`, or an upper-case placeholder: TYPE, NAME, DIR) and for a
	// code span in prose; only the flags those name are checked, not their values.
	Concrete bool
}

// Where is "file:line", for test names and messages.
func (e Example) Where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// invocation matches a plugin's name as kubectl, flux or the binary runs it.
var invocation = regexp.MustCompile(`(?:^|[\s(])(?:kubectl[ -]|flux[ -])(why[-_]terminating|flux[-_]chain|safe[-_]retire)(?:\s|$)`)

// inlineCode matches a code span on one line.
var inlineCode = regexp.MustCompile("`[^`]+`")

// Find returns the invocations of plugin ("why-terminating", "flux-chain" or "safe-retire") in
// the fenced code blocks and code spans of dir/*.md.
func Find(dir, plugin string) ([]Example, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Example
	for _, f := range files {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			spans := []string{line}
			if !fenced {
				spans = inlineCode.FindAllString(line, -1)
			}
			for _, s := range spans {
				for _, ex := range examplesIn(strings.Trim(s, "`"), plugin) {
					ex.File, ex.Line = name, i+1
					// A code span in prose names a mode (`kubectl flux-chain --repo`) as often as
					// it shows a whole command: only its flags are checked.
					ex.Concrete = ex.Concrete && fenced
					out = append(out, ex)
				}
			}
		}
	}
	return out, nil
}

// examplesIn returns the invocations of plugin in one line of code.
func examplesIn(line, plugin string) []Example {
	var out []Example
	locs := invocation.FindAllStringSubmatchIndex(line, -1)
	for i, loc := range locs {
		if strings.ReplaceAll(line[loc[2]:loc[3]], "_", "-") != plugin {
			continue
		}
		end := len(line)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		start := loc[0]
		if c := line[start]; c == ' ' || c == '\t' || c == '(' {
			start++
		}
		text := commandEnd(line[start:end])
		rest := strings.TrimSpace(text[loc[3]-start:])
		words, err := split(rest)
		// The bare name (`kubectl safe-retire`) names the plugin; it is not an example.
		if rest == "" {
			continue
		}
		out = append(out, Example{Text: text, Args: words, Concrete: err == nil && concrete(rest)})
	}
	return out
}

// commandEnd cuts s at the end of its first command (a pipe, a redirection, `;`, `&`, `)` or a
// comment), outside quotes.
func commandEnd(s string) string {
	var quote byte
	depth := 0 // inside a synopsis's [alternatives], `|` separates them
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case c == '|' && depth > 0:
		case c == '|' || c == '>' || c == ';' || c == '&' || c == ')',
			c == '#' && i > 0 && s[i-1] == ' ',
			c == '2' && strings.HasPrefix(s[i:], "2>") && i > 0 && s[i-1] == ' ':
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// placeholder matches what stands for a value the reader fills in.
var placeholder = regexp.MustCompile(`\[|<|…|\.\.\.|\b[A-Z][A-Z_-]*[A-Z]\b|=X\b`)

func concrete(s string) bool { return !placeholder.MatchString(s) }

// split splits s into words as a POSIX shell does for quotes and backslashes; it makes no
// expansion.
func split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte(`$"\`+"`", s[i+1]) >= 0:
				i++
				w.WriteByte(s[i])
			default:
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// flagName matches a flag as a word of a synopsis or example: `--name`, `--name=…`, `-n`.
var flagName = regexp.MustCompile(`^(--[a-z][a-z0-9-]*|-[a-zA-Z])(=|$)`)

// UnknownFlags lists the flags ex names that cmd does not define, for every example, concrete
// or not: a synopsis's `[--path DIR]` names --path.
func UnknownFlags(cmd *cobra.Command, ex Example) []string {
	var out []string
	for _, w := range strings.Fields(strings.NewReplacer("[", " ", "]", " ", "|", " ").Replace(ex.Text)) {
		m := flagName.FindStringSubmatch(w)
		if m == nil {
			continue
		}
		name := m[1]
		var known bool
		if strings.HasPrefix(name, "--") {
			known = cmd.Flags().Lookup(name[2:]) != nil
		} else {
			known = cmd.Flags().ShorthandLookup(name[1:]) != nil
		}
		if !known {
			out = append(out, name)
		}
	}
	return out
}

// Parse parses ex's words with cmd's flags and checks its positional arguments with cmd's
// Args, as cobra does before RunE; the command does not run.
func Parse(cmd *cobra.Command, ex Example) error {
	cmd.SetArgs(nil)
	if err := cmd.ParseFlags(ex.Args); err != nil {
		return err
	}
	if cmd.Args != nil {
		return cmd.Args(cmd, cmd.Flags().Args())
	}
	return nil
}
