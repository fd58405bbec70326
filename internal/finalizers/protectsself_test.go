package finalizers

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A passphrase Secret's protection finalizer (piraeus-operator#402): its strip's cost says the
// Secret and its data go; a cleanup finalizer's cost and the core claim protection's are left
// as they are.
func TestProtectsSelfCost(t *testing.T) {
	secret := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	e := &Explanation{Object: ObjectRef{Version: "v1", Resource: "secrets", Kind: "Secret", Namespace: "linstor-system", Name: "linstor-operator-passphrase"},
		Finalizers: []Finalizer{
			{Name: "piraeus.linbit.com/protect-master-passphrase", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "left behind: whatever the controller would have cleaned up"}}},
			{Name: "finalizer.linstor-controller.linbit.com", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "left behind: x"}}},
			{Name: "kubernetes.io/pvc-protection", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "y"}}},
		}}
	applyProtectsSelf(subject{res: secret}, e)
	if c := e.Finalizers[0].Remedies[0].Cost; !strings.Contains(c, "secrets/linstor-operator-passphrase -n linstor-system and the data it holds are gone") || !strings.HasSuffix(c, "; left behind: whatever the controller would have cleaned up") {
		t.Errorf("protection strip cost = %q", c)
	}
	if c := e.Finalizers[1].Remedies[0].Cost; c != "left behind: x" {
		t.Errorf("cleanup strip cost changed: %q", c)
	}
	if c := e.Finalizers[2].Remedies[0].Cost; c != "y" {
		t.Errorf("registered protection's cost changed: %q", c)
	}
	domain := &Explanation{Object: e.Object, Finalizers: []Finalizer{{Name: "dataprotection.example.io/finalizer", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "z"}}}}}
	applyProtectsSelf(subject{res: secret}, domain)
	if c := domain.Finalizers[0].Remedies[0].Cost; c != "z" {
		t.Errorf("a domain's word taken for the finalizer's: %q", c)
	}
	custom := kinds.Resource{Group: "example.io", Version: "v1", Resource: "backups", Kind: "Backup", Namespaced: true}
	other := &Explanation{Object: e.Object, Finalizers: []Finalizer{{Name: "example.io/backup-protection", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "w"}}}}}
	applyProtectsSelf(subject{res: custom}, other)
	if c := other.Finalizers[0].Remedies[0].Cost; c != "w" {
		t.Errorf("a custom resource's protection cost changed: %q", c)
	}
}
