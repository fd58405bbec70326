package saferetire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/output"
)

// openRenderCache opens the render cache (--render-cache), authenticated with the build
// cache's key; a directory someone else may write is bad input (exit 3), as the build
// cache's is, and one that cannot be opened only costs renders.
func (o *SafeRetireOptions) openRenderCache() error {
	if o.RenderCacheDir == "" || o.Full || o.Orphans {
		return nil
	}
	key, err := helmrender.ReadCacheKey(o.CacheKeyFile, o.getenv)
	if err != nil {
		return exitcode.WithCode(exitcode.Usage, err)
	}
	c, err := helmrender.OpenCache(o.RenderCacheDir, key)
	switch {
	case errors.Is(err, gitops.ErrUntrustedCache):
		return exitcode.WithCode(exitcode.Usage, err)
	case err != nil:
		fmt.Fprintf(o.ErrOut, "# %s; rendering without it\n", output.Sanitize(err.Error()))
		return nil
	}
	o.renders = c
	return nil
}

// closeRenderCache ends the run exit 3 when it refused an entry someone else could have
// written (which may have decided the result), names the entries that failed
// authentication, and trims the cache when the run added to it.
func (o *SafeRetireOptions) closeRenderCache() error {
	if bad := o.renders.Untrusted(); bad != nil {
		return exitcode.WithCode(exitcode.Usage, bad)
	}
	if n, named := o.renders.Unauthenticated(); n > 0 {
		fmt.Fprintf(o.ErrOut, "# render cache: %d entr(ies) failed authentication (forged, damaged, or written under another key) and were rendered instead: %s\n",
			n, output.Sanitize(strings.Join(named, ", ")))
	}
	if _, _, stored := o.renders.Stats(); stored > 0 {
		if err := o.renders.Trim(maxCacheBytes); err != nil {
			fmt.Fprintf(o.ErrOut, "# trimming the render cache: %s\n", output.Sanitize(err.Error()))
		}
	}
	return nil
}
