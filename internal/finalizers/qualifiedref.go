package finalizers

import (
	"strings"
	"unicode"

	"github.com/kubeforensics/suite/internal/kinds"
)

// qualifiedKind resolves the stem of a `…Ref`/`…Name` field whose last camel-case words are the
// whole name of one of byKind's kinds, after a qualifier saying which one it is
// (`targetDestinationName` → Destination, `sourceClusterRef` → Cluster): the longest such
// ending wins. Only whole words at a capital letter count, and only a kind's entire name, so
// `roleName` never matches `KubernetesAuthEngineRole` through it (that is looseref's, and only
// for fields calling themselves references); false when no ending is a kind.
func qualifiedKind(stem string, byKind map[string]kinds.Resource) (kinds.Resource, bool) {
	for i, r := range stem {
		if i == 0 || !unicode.IsUpper(r) {
			continue
		}
		if res, ok := byKind[strings.ToLower(stem[i:])]; ok {
			return res, true
		}
	}
	return kinds.Resource{}, false
}
