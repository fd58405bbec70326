package kbuild

import (
	"os"
	"path/filepath"
	"strings"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// memRootAlias is where the in-memory layer keeps root's files when root's own path holds a
// name that layer cannot create. Only the generated kustomization file lives there; kustomize
// never sees this path.
const memRootAlias = "/kubeforensics-source-root"

// overlayFS is the file system a build reads: the disk under an in-memory layer that holds
// the generated kustomization file. When every directory name on the path to root is one
// kustomize's in-memory file system can create, it is fluxcd/pkg's own layer, as
// kustomize-controller's build has it (its checkout is a temporary directory with such
// names). Otherwise (a clone into /tmp/owner+name, a home directory with a space) the names
// above root are the checkout's, not the source's: the layer keeps root's files under a
// fixed alias instead, and names inside the repository are still checked as the controller
// would check them.
func overlayFS(disk filesys.FileSystem, root string) filesys.FileSystem {
	if illegalRootName(root) == "" {
		return securefs.MakeFsInMemory(disk)
	}
	return aliasedMemory{disk: disk, mem: filesys.MakeFsInMemory(), root: filepath.Clean(root)}
}

// aliasedMemory layers an in-memory file system, whose paths under root are kept under
// memRootAlias, over a read-only disk: writes go to memory, reads look there first.
type aliasedMemory struct {
	disk, mem filesys.FileSystem
	root      string
}

// toMem is p's path in the memory layer.
func (fs aliasedMemory) toMem(p string) string {
	if rel, ok := under(fs.root, p); ok {
		return filepath.Join(memRootAlias, rel)
	}
	return p
}

// fromMem is the path the memory layer's m stands for.
func (fs aliasedMemory) fromMem(m string) string {
	if rel, ok := under(memRootAlias, m); ok {
		return filepath.Join(fs.root, rel)
	}
	return m
}

// under is p relative to dir, and whether p is dir or lies below it.
func under(dir, p string) (string, bool) {
	p = filepath.Clean(p)
	if p == dir {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(p, dir+string(filepath.Separator)); ok {
		return rest, true
	}
	return "", false
}

func (fs aliasedMemory) Create(p string) (filesys.File, error) { return fs.mem.Create(fs.toMem(p)) }
func (fs aliasedMemory) Mkdir(p string) error                  { return fs.mem.Mkdir(fs.toMem(p)) }
func (fs aliasedMemory) MkdirAll(p string) error               { return fs.mem.MkdirAll(fs.toMem(p)) }
func (fs aliasedMemory) RemoveAll(p string) error              { return fs.mem.RemoveAll(fs.toMem(p)) }
func (fs aliasedMemory) WriteFile(p string, data []byte) error {
	return fs.mem.WriteFile(fs.toMem(p), data)
}

func (fs aliasedMemory) Exists(p string) bool {
	return fs.mem.Exists(fs.toMem(p)) || fs.disk.Exists(p)
}

func (fs aliasedMemory) IsDir(p string) bool { return fs.mem.IsDir(fs.toMem(p)) || fs.disk.IsDir(p) }

func (fs aliasedMemory) Open(p string) (filesys.File, error) {
	if m := fs.toMem(p); fs.mem.Exists(m) {
		return fs.mem.Open(m)
	}
	return fs.disk.Open(p)
}

func (fs aliasedMemory) ReadFile(p string) ([]byte, error) {
	if m := fs.toMem(p); fs.mem.Exists(m) {
		return fs.mem.ReadFile(m)
	}
	return fs.disk.ReadFile(p)
}

func (fs aliasedMemory) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	return fs.disk.CleanedAbs(p)
}

func (fs aliasedMemory) ReadDir(p string) ([]string, error) {
	return merged(fs.mem.ReadDir(fs.toMem(p)))(fs.disk.ReadDir(p))
}

func (fs aliasedMemory) Glob(pattern string) ([]string, error) {
	inMem, err := fs.mem.Glob(fs.toMem(pattern))
	for i, m := range inMem {
		inMem[i] = fs.fromMem(m)
	}
	return merged(inMem, err)(fs.disk.Glob(pattern))
}

func (fs aliasedMemory) Walk(p string, walkFn filepath.WalkFunc) error {
	visited := map[string]bool{}
	if m := fs.toMem(p); fs.mem.Exists(m) {
		if err := fs.mem.Walk(m, func(mp string, info os.FileInfo, err error) error {
			real := fs.fromMem(mp)
			visited[real] = true
			return walkFn(real, info, err)
		}); err != nil {
			return err
		}
	}
	return fs.disk.Walk(p, func(dp string, info os.FileInfo, err error) error {
		if visited[dp] {
			return nil
		}
		return walkFn(dp, info, err)
	})
}

// merged joins two listings, the first's entries first and each name once; it fails only
// when both failed, as fluxcd/pkg's layer does.
func merged(first []string, firstErr error) func([]string, error) ([]string, error) {
	return func(second []string, secondErr error) ([]string, error) {
		if firstErr != nil && secondErr != nil {
			return nil, secondErr
		}
		seen := map[string]bool{}
		var out []string
		for _, list := range [][]string{first, second} {
			for _, e := range list {
				if !seen[e] {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
		return out, nil
	}
}
