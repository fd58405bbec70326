package finalizers

import (
	"context"
	"time"

	"github.com/kubeforensics/suite/internal/report"
)

// namespaceGoing reads whether namespace ns is being deleted, for the rules that depend on it
// (the API server refuses every new object in such a namespace). since is when its deletion was
// requested, nil when it is not being deleted or could not be read; read is false when it could
// not be read. A failed read is appended to *unchecked, the caller's record of reads that
// failed; a caller with none passes nil and says by read what an unread namespace means to its
// rule (most skip the object, as they would in a namespace being deleted).
func (x *Explainer) namespaceGoing(ctx context.Context, ns string, unchecked *[]report.Gap) (since *time.Time, read bool) {
	since, gap := x.namespaceDeleted(ctx, ns)
	if gap != (report.Gap{}) {
		if unchecked != nil {
			*unchecked = append(*unchecked, gap)
		}
		return nil, false
	}
	return since, true
}
