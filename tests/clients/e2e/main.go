// End-to-end: the generated Go client (memorywire.HTTPClient) against a live `mnemowire serve`,
// from a module of its own that requires mnemowire.dev/memorywire through a replace line, as a
// port author would. Every operation, the error envelope (refused here and by the server), and
// authentication. Prints one JSON line per step; exits 1 on the first failure. Run by
// tests/clients/test_go_client.py.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"mnemowire.dev/memorywire"
)

var ctx = context.Background()

func step(name string, detail any) {
	line, _ := json.Marshal(map[string]any{"step": name, "detail": detail})
	fmt.Println(string(line))
}

func fail(format string, args ...any) {
	step("failed", fmt.Sprintf(format, args...))
	os.Exit(1)
}

func must[T any](value T, err error) T {
	if err != nil {
		fail("%v", err)
	}
	return value
}

// envelope is the error envelope a refused call returned.
func envelope(err error) *memorywire.ErrorEnvelope {
	var refused *memorywire.ErrorEnvelope
	if !errors.As(err, &refused) {
		fail("expected an error envelope, got %v", err)
	}
	return refused
}

// decode makes a request from its JSON, validated (as a port reading JSON would).
func decode[T any](parse func([]byte) (T, error), text string) T {
	return must(parse([]byte(text)))
}

func main() {
	url, token := os.Getenv("MNEMOWIRE_URL"), os.Getenv("MNEMOWIRE_TOKEN")
	client := memorywire.NewHTTPClient(url, token)
	var store memorywire.MemoryStore = client // and every optional interface: see below
	if _, ok := store.(memorywire.UpdateStore); !ok {
		fail("HTTPClient is not an UpdateStore")
	}

	capabilities := must(client.Capabilities(ctx))
	step("capabilities", len(capabilities.Capabilities))
	step("health", must(client.Health(ctx)).Status)

	tea := must(client.Remember(ctx, decode(memorywire.DecodeRememberRequest,
		`{"agent_id": "a", "type": "semantic", "content": "Alice likes green tea"}`)))
	cake := must(client.Remember(ctx, decode(memorywire.DecodeRememberRequest,
		`{"agent_id": "a", "type": "semantic", "content": "Alice bakes lemon cake", "metadata": {"topic": "food"}}`)))
	step("remember", []memorywire.MemoryID{tea.ID, cake.ID})

	found := must(client.Recall(ctx, decode(memorywire.DecodeRecallRequest,
		`{"agent_id": "a", "query": "green tea", "k": 1}`)))
	if len(found.Results) != 1 || found.Results[0].ID != tea.ID {
		fail("recall did not find the tea: %+v", found.Results)
	}
	step("recall", found.Results[0].ID)

	got := must(client.Get(ctx, decode(memorywire.DecodeGetRequest,
		fmt.Sprintf(`{"agent_id": "a", "ids": [%q, "missing-id"]}`, tea.ID))))
	if len(got.Records) != 1 || len(got.Missing) != 1 {
		fail("get: %+v", got)
	}
	step("get", got.Records[0].Version)

	page := must(client.List(ctx, decode(memorywire.DecodeListRequest, `{"agent_id": "a", "limit": 1}`)))
	if page.NextCursor == nil {
		fail("list gave no cursor")
	}
	next := must(client.List(ctx, decode(memorywire.DecodeListRequest,
		fmt.Sprintf(`{"agent_id": "a", "limit": 1, "cursor": %q}`, *page.NextCursor))))
	step("list", []memorywire.MemoryID{page.Records[0].ID, next.Records[0].ID})

	update := fmt.Sprintf(`{"agent_id": "a", "id": %q, "expected_version": 1, "content": "Alice likes tea"}`, tea.ID)
	updated := must(client.Update(ctx, decode(memorywire.DecodeUpdateRequest, update)))
	_, err := client.Update(ctx, decode(memorywire.DecodeUpdateRequest, update))
	step("update", []any{updated.Version, envelope(err).Code})

	batch := must(client.RememberBatch(ctx, decode(memorywire.DecodeRememberBatchRequest,
		`{"requests": [{"agent_id": "a", "type": "semantic", "content": "one"},
		               {"agent_id": "a", "type": "semantic", "content": "two"}]}`)))
	merged := must(client.Merge(ctx, decode(memorywire.DecodeMergeRequest, fmt.Sprintf(
		`{"agent_id": "a", "canonical": %q, "duplicates": [%q]}`, batch.Results[0].ID, batch.Results[1].ID))))
	step("remember_batch+merge", []any{len(batch.Results), merged.MergedCount})

	expired := must(client.Expire(ctx, decode(memorywire.DecodeExpireRequest,
		`{"agent_id": "a", "policy": {"older_than_days": 0}, "action": "archive"}`)))
	restored := must(client.Restore(ctx, decode(memorywire.DecodeRestoreRequest,
		fmt.Sprintf(`{"agent_id": "a", "ids": [%q]}`, tea.ID))))
	step("expire+restore", []any{expired.MatchedCount, restored.Restored})

	forgotten := must(client.Forget(ctx, decode(memorywire.DecodeForgetRequest,
		`{"agent_id": "a", "filter": {"topic": "food"}, "hard_delete": true}`)))
	step("forget", forgotten.ForgottenIDs)

	// the error envelope: refused here (the struct breaks the spec), and by the server
	zero := int64(0)
	_, err = client.Recall(ctx, &memorywire.RecallRequest{AgentID: "a", Query: "tea", K: &zero})
	local := envelope(err)
	step("invalid", []any{local.Code, local.Details[0].Path, local.Details[0].Rule})

	// authentication: no token, and a token for another agent
	_, err = memorywire.NewHTTPClient(url, "").Recall(ctx, decode(memorywire.DecodeRecallRequest,
		`{"agent_id": "a", "query": "tea"}`))
	anonymous := envelope(err).Code
	_, err = client.Remember(ctx, decode(memorywire.DecodeRememberRequest,
		`{"agent_id": "b", "type": "semantic", "content": "not mine"}`))
	step("auth", []any{anonymous, envelope(err).Code})

	down := memorywire.NewHTTPClient("http://127.0.0.1:9", "")
	down.HTTP.Timeout = 2 * time.Second
	_, err = down.Health(ctx)
	step("unreachable", envelope(err).Code)
	step("done", true)
}
