package saferetire

import (
	"context"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/ghcomment"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/version"
)

// githubCommentUsage is the help of --github-comment.
const githubCommentUsage = "With --offline --dry-run in a pull_request run of GitHub Actions: keep one comment on the pull request per entry path up to date with the verdict (found by a hidden marker, edited in place), using GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY and the event payload. A comment that cannot be posted (a fork's read-only token) is a warning; the exit code stays the verdict's."

// completeComment reads where to post from the environment when --github-comment is given.
// It runs before Complete connects to a cluster, so it checks the flag combination first.
func (o *SafeRetireOptions) completeComment() error {
	if !o.GitHubComment {
		return nil
	}
	if err := o.validateComment(); err != nil {
		return err
	}
	c, err := ghcomment.FromEnv(o.getenv)
	if err != nil {
		return err
	}
	o.commentTo = &c
	return nil
}

// validateComment refuses --github-comment outside the offline gate: a live run's comment
// would publish the cluster's names and objects on the pull request, which a fork's author
// may read.
func (o *SafeRetireOptions) validateComment() error {
	if o.GitHubComment && (!o.Offline || !o.DryRun || o.Orphans) {
		return exitcode.UsageErrorf("--github-comment posts the offline gate's verdict: it needs --offline --dry-run")
	}
	return nil
}

// comment posts (or edits) the pull request's comment for this entry path: the step
// summary's markdown. A failure is reported as a warning by ghcomment.Publish and does not
// change the exit code, which is the verdict's.
func (o *SafeRetireOptions) comment(ctx context.Context, res *Result) error {
	if o.commentTo == nil {
		return nil
	}
	var b strings.Builder
	if err := writeSummary(&b, res); err != nil {
		return err
	}
	entry := ""
	if l := res.Layout; l != nil {
		entry = l.FromTop(l.Entry)
	}
	annotations := o.ErrOut
	if output.Format(o.PrintFlags.Format) == output.Text {
		annotations = o.Out
	}
	post := ghcomment.Post{Plugin: "safe-retire", Entry: entry, Version: version.Get().Version, Markdown: b.String()}
	_ = ghcomment.Publish(ctx, *o.commentTo, post, annotations, o.ErrOut, ghactions.Enabled(o.getenv)) // reported as a warning
	return nil
}
