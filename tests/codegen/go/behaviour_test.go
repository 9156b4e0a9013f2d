// Behaviour of the generated Go bindings beyond the spec examples: how they decode, encode and
// validate. tests/codegen/test_go.py copies this file into a scratch copy of generated/go and
// runs it there, so the generated module itself holds only generated code.

package memorywire

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func decoded(t *testing.T, data string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func pairs(errs []ValidationError) [][2]string {
	out := [][2]string{}
	for _, e := range errs {
		out = append(out, [2]string{e.Path, e.Rule})
	}
	return out
}

func TestExtensibleStructKeepsUnknownMembers(t *testing.T) {
	in := `{"id":"m1","stored_at":1,"stores":[{"store":"a","status":"ok","count":1,"shard":7}],` +
		`"pending_approval":false,"ID":"not the id","ttl":{"days":3}}`
	var m RememberResponse
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "m1" {
		t.Errorf("ID = %q: a member differing only in case must not be taken for a field", m.ID)
	}
	if string(m.Extra["ID"]) != `"not the id"` || string(m.Extra["ttl"]) != `{"days":3}` {
		t.Errorf("Extra = %v", m.Extra)
	}
	if string(m.Stores[0].Extra["shard"]) != "7" {
		t.Errorf("nested Extra = %v", m.Stores[0].Extra)
	}
	if got := decoded(t, mustMarshal(t, m)); !reflect.DeepEqual(got, decoded(t, in)) {
		t.Errorf("round trip: %v", got)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestKnownFieldsWinOverExtra(t *testing.T) {
	m := RememberResponse{ID: "m1", Stores: nil, Extra: map[string]json.RawMessage{"id": json.RawMessage(`"x"`)}}
	out := mustMarshal(t, m)
	if strings.Count(out, `"id"`) != 1 || !strings.Contains(out, `"id":"m1"`) {
		t.Errorf("marshal = %s", out)
	}
	if !strings.Contains(out, `"stores":[]`) {
		t.Errorf("a nil required list must be written empty: %s", out)
	}
}

func TestOptionalFieldsKeepAbsentEmptyAndNullApart(t *testing.T) {
	for _, in := range []string{
		`{"agent_id":"a","query":"q"}`,
		`{"agent_id":"a","query":"q","types":[]}`,
		`{"agent_id":"a","query":"q","filter":{}}`,
		`{"agent_id":"a","query":"q","filter":{"x":{"$eq":null}}}`,
		`{"agent_id":"a","query":"q","filter":{"x":null,"n":{"$in":[1,null,"s"]}}}`,
	} {
		m, err := DecodeRecallRequest([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := decoded(t, mustMarshal(t, m)); !reflect.DeepEqual(got, decoded(t, in)) {
			t.Errorf("%s became %v", in, got)
		}
	}
	var ops FilterOperators
	if err := json.Unmarshal([]byte(`{"$eq":null}`), &ops); err != nil {
		t.Fatal(err)
	}
	if ops.Eq == nil || *ops.Eq != nil || ops.Ne != nil {
		t.Errorf("$eq null must be a pointer to nil, $ne absent a nil pointer: %+v", ops)
	}
}

func TestIntegersWrittenAsFractionsDecode(t *testing.T) {
	m, err := DecodeRecallRequest([]byte(`{"agent_id":"a","query":"q","k":1.0,"hops":2e0}`))
	if err != nil {
		t.Fatal(err)
	}
	if *m.K != 1 || *m.Hops != 2 {
		t.Errorf("k = %d, hops = %d", *m.K, *m.Hops)
	}
	if _, err := DecodeRecallRequest([]byte(`{"agent_id":"a","query":"q","k":1.5}`)); err == nil {
		t.Error("k = 1.5 must be rejected")
	}
}

func TestNumbersInAnyValuesStayExact(t *testing.T) {
	in := `{"agent_id":"a","type":"semantic","content":"c","metadata":{"big":123456789012345678901234567890,"f":0.1}}`
	m, err := DecodeRememberRequest([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := (*m.Metadata)["big"].(json.Number); !ok || n.String() != "123456789012345678901234567890" {
		t.Errorf("metadata big = %#v", (*m.Metadata)["big"])
	}
	if out := mustMarshal(t, m); !strings.Contains(out, "123456789012345678901234567890") {
		t.Errorf("marshal = %s", out)
	}
}

func TestDecodeRejectsInvalidRequests(t *testing.T) {
	_, err := DecodeRememberRequest([]byte(`{"agent_id":"a","type":"semantic","content":"c","approval_requried":true}`))
	var verrs ValidationErrors
	if !errors.As(err, &verrs) {
		t.Fatalf("err = %v, want ValidationErrors", err)
	}
	if want := [][2]string{{"/approval_requried", "additionalProperties"}}; !reflect.DeepEqual(pairs(verrs), want) {
		t.Errorf("errors = %v", pairs(verrs))
	}
	if _, err := DecodeRememberRequest([]byte(`{"agent_id":`)); err == nil || errors.As(err, &verrs) {
		t.Errorf("text that is not JSON must give the decoding error, got %v", err)
	}
}

func TestValidateReportsEveryRule(t *testing.T) {
	err := (&RememberRequest{}).Validate()
	var verrs ValidationErrors
	if !errors.As(err, &verrs) {
		t.Fatalf("err = %v", err)
	}
	want := [][2]string{{"/agent_id", "minLength"}, {"/content", "minLength"}, {"/type", "enum"}}
	if !reflect.DeepEqual(pairs(verrs), want) {
		t.Errorf("errors = %v, want %v", pairs(verrs), want)
	}
	ok := RememberRequest{AgentID: "a", Type: MemoryTypeEpisodic, Content: "c", Participants: Ptr([]string{"ann"})}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestOpenEnumsKeepNewerValues(t *testing.T) {
	if !MemoryTypeSemantic.Known() || MemoryType("dream").Known() {
		t.Error("Known")
	}
	in := `{"results":[{"id":"m","type":"dream","content":"c","score":1,"metadata":{},"created_at":0,` +
		`"supporting":[],"source_store":"s"}],"fusion_used":"borda","stores_queried":[],"latency_ms":1}`
	var m RecallResponse
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.Results[0].Type != "dream" || m.FusionUsed != "borda" {
		t.Errorf("decoded %+v", m)
	}
	if errs := ValidateJSON("recall.response", []byte(in)); errs != nil {
		t.Errorf("errors = %v", errs)
	}
}

func TestSemanticRuleInsideAReview(t *testing.T) {
	machine := `{\"name\":\"n\",\"initial\":\"a\",\"states\":[\"a\"],\"transitions\":[{\"trigger\":\"go\",\"source\":[\"a\",\"*\"],\"dest\":\"b\"}]}`
	review := `{"review_id":"r1","requested_at":1,"operation":"remember","agent_id":"a",` +
		`"diff":{"added":[],"removed":[],"modified":[]},` +
		`"request":{"agent_id":"a","type":"procedural","content":"` + machine + `"}}`
	want := [][2]string{{"/request/content", "stateReference"}}
	if got := pairs(ValidateJSON("review-request", []byte(review))); !reflect.DeepEqual(got, want) {
		t.Errorf("errors = %v, want %v", got, want)
	}
}

func TestValidateJSONOnBadInput(t *testing.T) {
	if got := pairs(ValidateJSON("remember", []byte(`{}`))); !reflect.DeepEqual(got, [][2]string{{"", "message"}}) {
		t.Errorf("unknown message: %v", got)
	}
	for _, in := range []string{`{`, `{} {}`, ``} {
		if got := pairs(ValidateJSON("health", []byte(in))); !reflect.DeepEqual(got, [][2]string{{"", "json"}}) {
			t.Errorf("%q: %v", in, got)
		}
	}
}

func TestEveryMessageHasAStruct(t *testing.T) {
	for _, name := range Messages {
		m := NewMessage(name)
		if m == nil || m.MessageName() != name {
			t.Errorf("NewMessage(%q) = %v", name, m)
		}
	}
	if NewMessage("nope") != nil {
		t.Error("NewMessage of an unknown name must be nil")
	}
}

// refusingStore is a MemoryStore that refuses everything, to check the interface's shape.
type refusingStore struct{}

func (refusingStore) refuse() error {
	return &ErrorEnvelope{Code: ErrorCodeUnsupported, Message: "nothing here", Details: []ErrorDetail{}}
}

func (s refusingStore) Remember(context.Context, *RememberRequest) (*RememberResponse, error) {
	return nil, s.refuse()
}

func (s refusingStore) Recall(context.Context, *RecallRequest) (*RecallResponse, error) {
	return nil, s.refuse()
}

func (s refusingStore) Forget(context.Context, *ForgetRequest) (*ForgetResponse, error) {
	return nil, s.refuse()
}

func (s refusingStore) Merge(context.Context, *MergeRequest) (*MergeResponse, error) {
	return nil, s.refuse()
}

func (s refusingStore) Expire(context.Context, *ExpireRequest) (*ExpireResponse, error) {
	return nil, s.refuse()
}

func TestErrorEnvelopeIsAnError(t *testing.T) {
	var store MemoryStore = refusingStore{}
	_, err := store.Recall(context.Background(), &RecallRequest{AgentID: "a", Query: "q"})
	var envelope *ErrorEnvelope
	if !errors.As(err, &envelope) || err.Error() != "unsupported: nothing here" {
		t.Fatalf("err = %v", err)
	}
	if err := envelope.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
