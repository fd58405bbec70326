package kbuild

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// runGenerator runs kustomize-controller's own generator (fluxcd/pkg/kustomize) over dir, with
// ignore as its extra ignore rules ("" for none), and returns the manifest and the path of the
// kustomization file it names. The generator reads the disk, and only two things there: the
// path's kustomization file and whether each spec.components entry exists. For a revision
// read from git's objects it runs over a staging directory that holds just those (the file,
// and an empty stand-in for each component that exists), removed afterwards, so the revision
// is not written out.
func runGenerator(files gitrev.Files, root, dir string, obj *unstructured.Unstructured, ignore string) ([]byte, string, error) {
	newGen := func(root string) *kustomize.Generator {
		if ignore == "" {
			return kustomize.NewGenerator(root, *obj)
		}
		return kustomize.NewGeneratorWithIgnore(root, ignore, *obj)
	}
	if onDisk(files) {
		manifest, kfile, _, err := newGen(root).GenerateManifest(dir)
		return manifest, kfile, err
	}
	stage, err := mkStage()
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(stage)
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return nil, "", fmt.Errorf("%s is not under %s", dir, root)
	}
	sdir := filepath.Join(stage, rel)
	if err := stageGeneratorInputs(files, dir, sdir, stage, obj); err != nil {
		return nil, "", err
	}
	manifest, kfile, _, err := newGen(stage).GenerateManifest(sdir)
	if err != nil {
		return nil, "", errors.New(strings.ReplaceAll(err.Error(), stage, root))
	}
	krel, err := filepath.Rel(sdir, kfile)
	if err != nil {
		return nil, "", err
	}
	return manifest, filepath.Join(dir, krel), nil
}

// mkStage makes a staging directory, in memory-backed /dev/shm where it can and no $TMPDIR
// is set (as gitrev places revisions), with its real path (the generator's secure file
// system compares resolved paths).
func mkStage() (string, error) {
	dir, err := "", errors.New("no /dev/shm")
	if os.Getenv("TMPDIR") == "" {
		dir, err = os.MkdirTemp("/dev/shm", "kbuild-generate-")
	}
	if err != nil {
		if dir, err = os.MkdirTemp("", "kbuild-generate-"); err != nil {
			return "", err
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return real, nil
}

// stageGeneratorInputs writes under sdir what the generator reads of dir: its kustomization
// file (at most MaxFileSize; a directory of that name stays a directory) and a stand-in for
// each spec.components entry that exists in the revision. Nothing is written outside stage.
func stageGeneratorInputs(files gitrev.Files, dir, sdir, stage string, obj *unstructured.Unstructured) error {
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return err
	}
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		fi, err := files.Stat(p)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			err = os.Mkdir(filepath.Join(sdir, name), 0o755)
		case fi.Size() > MaxFileSize:
			return fmt.Errorf("%s is larger than %d bytes", p, MaxFileSize)
		default:
			var data []byte
			if data, err = files.ReadFile(p); err == nil {
				err = os.WriteFile(filepath.Join(sdir, name), data, 0o644)
			}
		}
		if err != nil {
			return err
		}
	}
	components, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "components")
	for _, c := range components {
		if filepath.IsAbs(c) || strings.Contains(c, "://") {
			continue // the generator refuses it before looking
		}
		sp := filepath.Join(sdir, c)
		fi, err := files.Stat(filepath.Join(dir, c))
		if err != nil || !gitrev.Within(stage, sp) || sp == stage {
			continue
		}
		if fi.IsDir() {
			err = os.MkdirAll(sp, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(sp), 0o755); err == nil {
			err = os.WriteFile(sp, nil, 0o644)
		}
		if err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	return nil
}
