package saferetire

import (
	"errors"
	"fmt"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/output"
)

// CacheDirs are the directories of the caches a run keeps between runs, as the command's flags
// name them; "" for none.
type CacheDirs struct {
	// Build keeps tier builds (--build-cache), Charts downloaded charts (--chart-cache) and
	// Renders HelmRelease renders (--render-cache).
	Build, Charts, Renders string
	// KeyFile holds the secret that authenticates build and render cache entries
	// (--build-cache-key-file; "" reads gitops.BuildCacheKeyEnv).
	KeyFile string
}

// OpenCaches opens into req the caches of dirs that req reads: none for the orphans scan, no
// build cache with Full or AllowNetwork, no render cache with Full. A directory someone else
// may write, or a key that cannot be read, is bad input (exit 3): its entries could decide the
// result. A cache that cannot be opened otherwise only costs builds or renders, and is said on
// req.Log. getenv reads the key's environment variable.
func (req *Request) OpenCaches(dirs CacheDirs, getenv func(string) string) error {
	if dirs.Charts != "" && !req.Orphans {
		c, err := charts.OpenCache(dirs.Charts)
		switch {
		case errors.Is(err, charts.ErrUntrustedCache):
			return exitcode.WithCode(exitcode.Usage, err)
		case err != nil:
			fmt.Fprintf(req.log(), "# %s; rendering without it\n", output.Sanitize(err.Error()))
		}
		req.ChartCache = c
	}
	if dirs.Build != "" && !req.Full && !req.AllowNetwork && !req.Orphans {
		key, err := gitops.ReadBuildCacheKey(dirs.KeyFile, getenv)
		if err != nil {
			return exitcode.WithCode(exitcode.Usage, err)
		}
		c, err := gitops.OpenKeyedBuildCache(dirs.Build, key)
		switch {
		case errors.Is(err, gitops.ErrUntrustedCache):
			return exitcode.WithCode(exitcode.Usage, err)
		case err != nil:
			fmt.Fprintf(req.log(), "# %s; building without it\n", output.Sanitize(err.Error()))
		}
		req.BuildCache = c
	}
	return req.openRenderCache(dirs, getenv)
}

// openRenderCache opens the render cache into req, authenticated with the build cache's key;
// a directory someone else may write is bad input (exit 3), as the build cache's is, and one
// that cannot be opened only costs renders.
func (req *Request) openRenderCache(dirs CacheDirs, getenv func(string) string) error {
	if dirs.Renders == "" || req.Full || req.Orphans {
		return nil
	}
	key, err := helmrender.ReadCacheKey(dirs.KeyFile, getenv)
	if err != nil {
		return exitcode.WithCode(exitcode.Usage, err)
	}
	c, err := helmrender.OpenCache(dirs.Renders, key)
	switch {
	case errors.Is(err, gitops.ErrUntrustedCache):
		return exitcode.WithCode(exitcode.Usage, err)
	case err != nil:
		fmt.Fprintf(req.log(), "# %s; rendering without it\n", output.Sanitize(err.Error()))
		return nil
	}
	req.RenderCache = c
	return nil
}
