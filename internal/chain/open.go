package chain

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/sourceroot"
)

// The parts of a RepoRequest that are read before the lint: each input that cannot be
// honoured is bad input (exit 3), so callers refuse it before anything runs.

// OpenRepo opens the repository at dir and detects where its Flux source starts (sourceRoot,
// "" to detect) and its entry path (path, "" to detect).
func OpenRepo(dir, sourceRoot, path string) (*gitrev.Repo, sourceroot.Layout, error) {
	repo, err := gitrev.OpenRepo(dir)
	if err != nil {
		return nil, sourceroot.Layout{}, err
	}
	layout, err := sourceroot.Detect(repo.Dir, sourceRoot, path, nil)
	if err != nil {
		return nil, sourceroot.Layout{}, exitcode.UsageErrorf("%s: %v", dir, err)
	}
	return repo, layout, nil
}

// LoadSettings reads config, else the configuration file at the repository's top level root
// when it has one, and combines it with what the flags declare. It returns the settings and
// the file read ("" for none).
func LoadSettings(root, config string, declared lint.Declared) (lint.Settings, string, error) {
	var cfg *lint.Config
	path := config
	if path == "" {
		path = filepath.Join(root, lint.ConfigFile)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			path = ""
		}
	}
	if path != "" {
		var err error
		if cfg, err = lint.ReadConfig(path); err != nil {
			return lint.Settings{}, path, exitcode.UsageErrorf("%v", err)
		}
	}
	s, err := lint.NewSettings(root, cfg, path, declared)
	if err != nil {
		return lint.Settings{}, path, exitcode.UsageErrorf("%v", err)
	}
	return s, path, nil
}

// ChartRenderer is how HelmReleases are rendered for crd-order: with the charts pulled to dir,
// kept in cacheDir, or (allowNetwork) downloaded within timeout, for kubeVersion; nil when no
// chart source is given. A render worker found but not used is said on errOut (nil: not said).
func ChartRenderer(dir, cacheDir, kubeVersion string, allowNetwork bool, timeout time.Duration, errOut io.Writer) (*lint.ChartCRDs, error) {
	if dir == "" && cacheDir == "" && !allowNetwork {
		return nil, nil
	}
	if err := helmrender.CheckKubeVersion(kubeVersion); err != nil {
		return nil, exitcode.UsageErrorf("--kube-version %q: %v", kubeVersion, err)
	}
	g := &charts.Getter{Dir: dir, AllowNetwork: allowNetwork, Timeout: timeout}
	if cacheDir != "" {
		c, err := charts.OpenCache(cacheDir)
		if err != nil {
			return nil, exitcode.UsageErrorf("--chart-cache: %v", err)
		}
		g.Cache = c
	}
	return &lint.ChartCRDs{Charts: g, Options: helmrender.Options{KubeVersion: kubeVersion, Worker: helmrender.NewWorker(errOut)}}, nil
}
