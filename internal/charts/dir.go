package charts

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// filesOf are the files a chart directory of ref is read from: the revision's (Ref.Files),
// else the disk.
func filesOf(ref Ref) gitrev.Files {
	if ref.Files != nil {
		return ref.Files
	}
	return gitrev.Disk(cmp.Or(ref.Root, ref.Dir))
}

// loadDir loads a chart directory of the repository's revision, read from its files, so a
// revision read from git's objects is never written out for it. A symbolic link anywhere in
// it is refused: Helm's loader follows links, which could read files outside the repository.
func loadDir(ref Ref) (*Chart, error) {
	files := filesOf(ref)
	fi, err := files.Stat(ref.Dir)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: no chart directory at that path in this revision", ref)
	}
	if err := refuseLinks(files, ref.Dir); err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	c, err := loadChartDir(files, ref.Dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if err := addLocalDependencies(ref, files, c); err != nil {
		return nil, err
	}
	return &Chart{Chart: c, Version: c.Metadata.Version, From: "this repository"}, nil
}

// loadChartDir is Helm's loader.LoadDir reading dir from files: the chart's .helmignore and
// Helm's default rules, a file above Helm's size bound refused, a UTF-8 byte order mark
// dropped, and the files handed to Helm's loader.LoadFiles. A symbolic link is never followed
// (it is not a regular file); refuseLinks refuses one before. TestLoadChartDirAsHelm holds it
// to LoadDir.
func loadChartDir(files gitrev.Files, dir string) (*chart.Chart, error) {
	rules := ignore.Empty()
	data, err := files.ReadFile(filepath.Join(dir, ignore.HelmIgnore))
	switch {
	case err == nil:
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	rules.AddDefaults()
	var loaded []*archive.BufferedFile
	err = gitrev.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		n := filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if rules.Ignore(n, fi) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", p)
		}
		if fi.Size() > archive.MaxDecompressedFileSize {
			return fmt.Errorf("chart file %q is larger than the maximum file size %d", fi.Name(), archive.MaxDecompressedFileSize)
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return fmt.Errorf("error reading %s: %w", n, err)
		}
		loaded = append(loaded, &archive.BufferedFile{Name: n, ModTime: fi.ModTime(), Data: bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loader.LoadFiles(loaded)
}

// refuseLinks fails on a symbolic link anywhere under dir.
func refuseLinks(files gitrev.Files, dir string) error {
	return gitrev.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link, which is not followed", p)
		}
		return nil
	})
}
