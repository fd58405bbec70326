package fleet

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
)

// WriteText draws the report for people: each context's section in name order (a header
// naming the context and its server, then the plugin's own text, or the failure), then the
// summary table (context, verdict, what is stuck or failing) and the fleet verdict. Context
// names, servers and messages come from others' kubeconfigs and clusters: every line is
// escaped.
func WriteText[R any](w io.Writer, rep *Report[R], p output.Palette, section func(io.Writer, R) error) error {
	for _, e := range rep.Contexts {
		head := fmt.Sprintf("=== context %s (%s): %s ===\n", output.Sanitize(e.Context), output.Sanitize(e.Server), colour(e.Verdict, exitcode.Code(e.ExitCode), p))
		if err := output.WriteClean(w, p.Bold(head), p); err != nil {
			return err
		}
		if e.Failure != nil {
			line := fmt.Sprintf("%s: no result from this context (%s): %s\nverdict: %s (exit %d)\n",
				p.Warn("UNKNOWN"), e.Failure.Reason, output.Sanitize(e.Failure.Message), colour(e.Verdict, exitcode.Code(e.ExitCode), p), e.ExitCode)
			if err := output.WriteClean(w, line, p); err != nil {
				return err
			}
		} else if err := section(w, e.Result); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return writeSummary(w, rep, p)
}

// writeSummary writes the table of contexts and the fleet verdict.
func writeSummary[R any](w io.Writer, rep *Report[R], p output.Palette) error {
	var b strings.Builder
	fmt.Fprintf(&b, "FLEET: %d context(s), %s\n", len(rep.Contexts), output.Sanitize(rep.Selector))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tVERDICT\tEXIT\tWHAT")
	for _, e := range rep.Contexts {
		// Colour codes would break the column widths: the table is plain.
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", output.Sanitize(e.Context), e.Verdict, e.ExitCode, output.Sanitize(e.Summary))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "fleet verdict: %s (exit %d, the worst of all contexts)\n", colour(rep.Verdict, rep.Code(), p), rep.ExitCode)
	return output.WriteClean(w, b.String(), p)
}

func colour(verdict string, code exitcode.Code, p output.Palette) string {
	switch code {
	case exitcode.OK:
		return p.Good(verdict)
	case exitcode.Finding:
		return p.Bad(verdict)
	}
	return p.Warn(verdict)
}

// ContextList is what --list-contexts prints: the selection and the contexts it selects,
// read from the kubeconfig alone.
type ContextList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Selector   string    `json:"selector"`
	Contexts   []Context `json:"contexts"`
	// Notes name inclusion patterns that select nothing.
	Notes []string `json:"notes,omitempty"`
}

// NewContextList returns the list for the selected contexts.
func NewContextList(sel *Selector, selected []Context, notes []string) *ContextList {
	return &ContextList{APIVersion: "fleet.kubeforensics.dev/v1alpha1", Kind: "ContextList", Selector: sel.Text, Contexts: selected, Notes: notes}
}

// WriteText prints the list as a table of context and server.
func (l *ContextList) WriteText(w io.Writer, p output.Palette) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tSERVER")
	for _, c := range l.Contexts {
		server := c.Server
		if server == "" {
			server = "(no cluster in the kubeconfig)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", output.Sanitize(c.Name), output.Sanitize(server))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "%d context(s) selected by %s\n", len(l.Contexts), output.Sanitize(l.Selector))
	for _, n := range l.Notes {
		fmt.Fprintf(&b, "note: %s\n", output.Sanitize(n))
	}
	return output.WriteClean(w, b.String(), p)
}
