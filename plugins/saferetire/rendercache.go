package saferetire

import (
	"errors"
	"fmt"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/output"
	sr "github.com/kubeforensics/suite/internal/saferetire"
)

// openRenderCache opens the render cache (--render-cache) into req, authenticated with the
// build cache's key; a directory someone else may write is bad input (exit 3), as the build
// cache's is, and one that cannot be opened only costs renders.
func (o *SafeRetireOptions) openRenderCache(req *sr.Request) error {
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
	req.RenderCache = c
	return nil
}
