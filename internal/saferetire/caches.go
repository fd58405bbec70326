package saferetire

import (
	"errors"
	"fmt"

	"github.com/kubeforensics/suite/internal/cache"
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
		if err := req.opened(err, "rendering"); err != nil {
			return err
		}
		req.ChartCache = c
	}
	if dirs.Build != "" && !req.Full && !req.AllowNetwork && !req.Orphans {
		key, err := gitops.ReadBuildCacheKey(dirs.KeyFile, getenv)
		if err != nil {
			return exitcode.WithCode(exitcode.Usage, err)
		}
		c, err := gitops.OpenKeyedBuildCache(dirs.Build, key)
		if err := req.opened(err, "building"); err != nil {
			return err
		}
		req.BuildCache = c
	}
	if dirs.Renders != "" && !req.Full && !req.Orphans {
		// Authenticated with the build cache's key.
		key, err := helmrender.ReadCacheKey(dirs.KeyFile, getenv)
		if err != nil {
			return exitcode.WithCode(exitcode.Usage, err)
		}
		c, err := helmrender.OpenCache(dirs.Renders, key)
		if err := req.opened(err, "rendering"); err != nil {
			return err
		}
		req.RenderCache = c
	}
	return nil
}

// opened is what a cache that failed to open (err) comes to: bad input (exit 3) when someone
// else may write it, else a line on req.Log, and the run goes on doing without it.
func (req *Request) opened(err error, doing string) error {
	switch {
	case errors.Is(err, cache.ErrUntrusted):
		return exitcode.WithCode(exitcode.Usage, err)
	case err != nil:
		fmt.Fprintf(req.log(), "# %s; %s without it\n", output.Sanitize(err.Error()), doing)
	}
	return nil
}
