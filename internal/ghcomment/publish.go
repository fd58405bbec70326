package ghcomment

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/output"
)

// Post is one plugin's verdict for one entry path, as markdown (its step summary).
type Post struct {
	Plugin, Entry, Version, Markdown string
}

// Publish keeps the pull request's comment for p up to date and says on errOut what it did.
// The comment is a copy of a verdict the step summary and the exit code already carry, so a
// comment that cannot be posted (a fork's read-only token, GitHub unreachable or refusing) is
// reported as a warning, also as a workflow-command annotation on annotations when actions is
// set, and the returned error is that warning's cause for callers and tests; it must not
// change the run's exit code.
func Publish(ctx context.Context, c Config, p Post, annotations, errOut io.Writer, actions bool) error {
	body := Body(c, p.Plugin, p.Entry, p.Version, p.Markdown)
	out, err := NewClient(c).Upsert(ctx, Marker(p.Plugin, p.Entry), body)
	if err == nil {
		fmt.Fprintf(errOut, "# pull request #%d: comment %s: %s\n", c.Number, out.Action, output.Sanitize(out.HTMLURL))
		return nil
	}
	msg := fmt.Sprintf("no pull request comment for entry path %s: %s", p.Entry, err)
	if errors.Is(err, ErrReadOnly) {
		msg = fmt.Sprintf("no pull request comment for entry path %s: GitHub refused to write with this token (%s). A pull request from a fork gets a read-only GITHUB_TOKEN; the verdict is in the step summary and the exit code.", p.Entry, err)
	}
	fmt.Fprintf(errOut, "# warning: %s\n", output.Sanitize(msg))
	if actions {
		ghactions.WriteAnnotations(annotations, []ghactions.Annotation{{Level: ghactions.Warning, Title: p.Plugin + ": pull request comment not posted", Message: msg}}, "")
	}
	return err
}
