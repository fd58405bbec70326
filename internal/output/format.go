// Package output renders a plugin's typed result: text trees for people, json and yaml for
// machines, and dot or mermaid graphs. Printers take a writer and a value; they never fetch data
// and never choose exit codes. Only the text form uses colour.
package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Format is an output format name as given to -o.
type Format string

// The formats the suite knows. Each plugin allows a subset.
const (
	Text    Format = "text"
	JSON    Format = "json"
	YAML    Format = "yaml"
	Dot     Format = "dot"
	Mermaid Format = "mermaid"
)

// PrintFlags binds -o and --color for one command. Allowed drives help, completion and Validate.
type PrintFlags struct {
	Format  string
	Color   string
	Allowed []Format
}

// NewPrintFlags returns print flags that accept the given formats; the first is the default.
func NewPrintFlags(allowed ...Format) *PrintFlags {
	return &PrintFlags{Format: string(allowed[0]), Color: "auto", Allowed: allowed}
}

// AllowedFormats lists the accepted -o values in order.
func (f *PrintFlags) AllowedFormats() []string {
	out := make([]string, len(f.Allowed))
	for i, a := range f.Allowed {
		out[i] = string(a)
	}
	return out
}

// AddFlags registers -o and --color on cmd, with shell completion of their values.
func (f *PrintFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.Format, "output", "o", f.Format,
		"Output format. One of: "+strings.Join(f.AllowedFormats(), "|")+".")
	cmd.Flags().StringVar(&f.Color, "color", f.Color,
		"Colour the text output: auto (only on a terminal, and not when NO_COLOR is set), always or never.")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(f.AllowedFormats(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
}

// Validate rejects an unknown format or colour mode as bad input.
func (f *PrintFlags) Validate() error {
	ok := false
	for _, a := range f.Allowed {
		ok = ok || string(a) == f.Format
	}
	if !ok {
		return exitcode.UsageErrorf("unknown output format %q: allowed formats are %s", f.Format, strings.Join(f.AllowedFormats(), ", "))
	}
	switch f.Color {
	case "auto", "always", "never":
		return nil
	}
	return exitcode.UsageErrorf("unknown --color %q: use auto, always or never", f.Color)
}

// UseColor decides colour for w: never when NO_COLOR is set (and --color is not always) or the
// format is not text, always on request, otherwise only when w is a terminal.
func (f *PrintFlags) UseColor(w io.Writer) bool {
	if Format(f.Format) != Text || f.Color == "never" {
		return false
	}
	if f.Color == "always" {
		return true
	}
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// PrintJSON writes v as indented JSON followed by a newline, with the keys of every object
// sorted (struct fields included), so two reports diff line by line whatever order the Go
// types declare their fields in.
func PrintJSON(w io.Writer, v any) error {
	b, err := SortedJSON(v)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return fmt.Errorf("encoding json: %w", err)
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// SortedJSON marshals v with the keys of every object sorted: marshalled once, then the keys
// of every object put in order (sortKeys), as decoding into maps and marshalling again would.
func SortedJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding json: %w", err)
	}
	return sortKeys(raw)
}

// PrintYAML writes v as YAML, using its json tags so both forms share one schema. The keys of
// every mapping are sorted: sigs.k8s.io/yaml converts the JSON through generic maps, which the
// YAML encoder writes in key order.
func PrintYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding yaml: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// Graphs are a result's graph printers, for the commands that allow -o dot or -o mermaid.
type Graphs struct {
	Dot, Mermaid func(io.Writer) error
}

// Print writes v to w in the format -o chose: json and yaml marshal v, dot and mermaid call
// graphs', and text calls text with the colours UseColor decides for w. Validate has already
// refused any format the command does not allow.
func (f *PrintFlags) Print(w io.Writer, v any, text func(io.Writer, Palette) error, graphs Graphs) error {
	switch Format(f.Format) {
	case JSON:
		return PrintJSON(w, v)
	case YAML:
		return PrintYAML(w, v)
	case Dot, Mermaid:
		draw := graphs.Dot
		if Format(f.Format) == Mermaid {
			draw = graphs.Mermaid
		}
		if draw == nil {
			return exitcode.UsageErrorf("this command draws no graph: -o %s", f.Format)
		}
		return draw(w)
	}
	return text(w, Palette{On: f.UseColor(w)})
}
