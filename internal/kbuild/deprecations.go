package kbuild

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/konfig"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubeforensics/suite/internal/progress"
)

// deprecationFS notes, for each kustomization file a build reads, the deprecation warnings
// kustomize raises for it (its own CheckDeprecatedFields, which it writes straight to the
// process's stderr on every build): the run says each once, with how many builds raised it
// and in which files (progress.Warnings), and the process drops kustomize's own lines
// (IsKustomizeDeprecation).
type deprecationFS struct {
	filesys.FileSystem
	root string
	mu   *sync.Mutex
	seen map[string]map[string]bool // warning → repository-relative files
}

func newDeprecationFS(fs filesys.FileSystem, root string) deprecationFS {
	return deprecationFS{FileSystem: fs, root: filepath.Clean(root), mu: &sync.Mutex{}, seen: map[string]map[string]bool{}}
}

func (f deprecationFS) ReadFile(p string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(p)
	if err == nil && slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(p)) {
		f.note(p, data)
	}
	return data, err
}

// note records the deprecated fields data uses; a file that does not parse is left to the
// build, which fails on it.
func (f deprecationFS) note(p string, data []byte) {
	var k kustypes.Kustomization
	if k.Unmarshal(data) != nil {
		return
	}
	msgs := k.CheckDeprecatedFields()
	if msgs == nil || len(*msgs) == 0 {
		return
	}
	where := p
	if rel, ok := under(f.root, p); ok {
		where = filepath.ToSlash(rel)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range *msgs {
		if f.seen[m] == nil {
			f.seen[m] = map[string]bool{}
		}
		f.seen[m][where] = true
	}
}

// report tells the run's warnings what this build raised: each warning once per build.
func (f deprecationFS) report(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for m, files := range f.seen {
		progress.Warn(ctx, "kustomize: "+strings.TrimPrefix(m, "# Warning: "), slices.Sorted(func(yield func(string) bool) {
			for p := range files {
				if !yield(p) {
					return
				}
			}
		})...)
	}
}

// IsKustomizeDeprecation says whether line (without its newline) is one of the deprecation
// warnings kustomize writes to the process's stderr when it loads a kustomization file. The
// set is kustomize's own, had from CheckDeprecatedFields on a kustomization using every
// deprecated field, so a new kustomize's wording is followed.
func IsKustomizeDeprecation(line string) bool {
	k := kustypes.Kustomization{
		Bases:                 []string{""},
		CommonLabels:          map[string]string{},
		ImageTags:             []kustypes.Image{{}},
		PatchesJson6902:       []kustypes.Patch{{}},
		PatchesStrategicMerge: []kustypes.PatchStrategicMerge{""},
		Vars:                  []kustypes.Var{{}},
	}
	msgs := k.CheckDeprecatedFields()
	return msgs != nil && slices.Contains(*msgs, line)
}
