package fluxchain

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/ghcomment"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/version"
)

// commentOptions is --github-comment: the lint's verdict kept in one pull-request comment per
// entry path.
type commentOptions struct {
	GitHubComment bool
	to            *ghcomment.Config
}

func (c *commentOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&c.GitHubComment, "github-comment", false, "With --repo in a pull_request run of GitHub Actions: keep one comment on the pull request per entry path up to date with the lint's verdict (found by a hidden marker, edited in place), using GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY and the event payload. A comment that cannot be posted (a fork's read-only token) is a warning; the exit code stays the verdict's.")
}

// validate checks that --github-comment goes with --repo and without --live: a live
// comparison's comment would publish the cluster's names on the pull request, which a fork's
// author may read.
func (c *commentOptions) validate(r *repoOptions) error {
	if c.GitHubComment && (r.Dir == "" || r.Live) {
		return exitcode.UsageErrorf("--github-comment posts the lint of a repository: it needs --repo, without --live")
	}
	return nil
}

// complete validates, before anything connects, and reads where to post from the environment.
func (c *commentOptions) complete(r *repoOptions, getenv func(string) string) error {
	if !c.GitHubComment {
		return nil
	}
	if err := c.validate(r); err != nil {
		return err
	}
	cfg, err := ghcomment.FromEnv(getenv)
	if err != nil {
		return err
	}
	c.to = &cfg
	return nil
}

// repoComment posts (or edits) the pull request's comment for the entry path: the step
// summary's markdown. A failure is reported as a warning by ghcomment.Publish and leaves the
// exit code the verdict's.
func (o *FluxChainOptions) repoComment(ctx context.Context, res *RepoResult) {
	if o.comment.to == nil {
		return
	}
	annotations := o.ErrOut
	if output.Format(o.PrintFlags.Format) == output.Text {
		annotations = o.Out
	}
	post := ghcomment.Post{Plugin: "flux-chain", Entry: o.repo.layout.FromTop(o.repo.layout.Entry), Version: version.Get().Version, Markdown: res.Markdown()}
	_ = ghcomment.Publish(ctx, *o.comment.to, post, annotations, o.ErrOut, ghactions.Enabled(o.repo.getenv)) // reported as a warning
}
