package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// Why the Strimzi topic-operator rule is a product fact (issue #38): from what the cluster
// shows, RBAC and ties to the domain, the cluster operator (which may update KafkaTopics only to
// delegate that right) is the remover of strimzi.io/topic-operator, with a tie to the domain.
// Only the rule in operator.go, which reads the topic's Kafka, names its entity operator.
func TestStrimziGeneralRankingNamesTheClusterOperator(t *testing.T) {
	kafkaRes := kinds.Resource{Group: "kafka.strimzi.io", Version: "v1beta2", Resource: "kafkatopics", Kind: "KafkaTopic", Namespaced: true}
	co := controllerObjects("kafka", "strimzi-cluster-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"kafka.strimzi.io"}, Resources: []string{"kafkatopics", "kafkatopics/status"}, Verbs: []string{"get", "list", "watch", "create", "patch", "update", "delete"}}})
	x := fakeExplainer(co, crdObject("kafka.strimzi.io", "kafkatopics"), crdObject("kafka.strimzi.io", "kafkas"))
	o := subject{res: kafkaRes, obj: &metav1.ObjectMeta{Name: "orders", Namespace: "kafka", Labels: map[string]string{"strimzi.io/cluster": "my-cluster"},
		Finalizers: []string{strimziTopicFinalizer}}}
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, strimziTopicFinalizer, nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	if len(a.controllers) != 1 || a.controllers[0].Object.Name != "strimzi-cluster-operator" || a.controllers[0].Confidence == ConfidenceNone {
		t.Fatalf("controllers = %+v", a.controllers)
	}
	t.Logf("general ranking: %s; ties %v", a.summary, a.controllers[0].Ties)
}
