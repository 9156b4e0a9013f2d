// End-to-end: the generated TypeScript client against a live `mnemowire serve`, as a port
// author would use it from the installed npm package. Every operation, the error envelope
// (refused here and refused by the server), and authentication. Prints one JSON line per
// step; exits 1 on the first failure. Run by tests/clients/test_typescript_client.py.
import {
  HttpClient,
  MemoryError,
  SPEC_VERSION,
  type RecallResponse,
  type RememberRequest,
} from "@mnemowire/memorywire";

const url = process.env["MNEMOWIRE_URL"] ?? "";
const token = process.env["MNEMOWIRE_TOKEN"] ?? "";
const memory = new HttpClient(url, { token });

function step(name: string, detail: unknown): void {
  console.log(JSON.stringify({ step: name, detail }));
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`check failed: ${what}`);
}

async function refused(call: () => Promise<unknown>): Promise<MemoryError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof MemoryError) return error;
    throw error;
  }
  throw new Error("the call was not refused");
}

const fact = (content: string, agent = "a"): RememberRequest => ({
  agent_id: agent,
  type: "semantic",
  content,
});

async function main(): Promise<void> {
  step("version", SPEC_VERSION);
  const capabilities = await memory.capabilities();
  step("capabilities", capabilities.capabilities.length);
  step("health", (await memory.health()).status);

  const tea = await memory.remember(fact("Alice likes green tea"));
  const cake = await memory.remember({ ...fact("Alice bakes lemon cake"), metadata: { topic: "food" } });
  step("remember", [tea.id, cake.id]);

  const found: RecallResponse = await memory.recall({ agent_id: "a", query: "green tea", k: 1 });
  check(found.results[0]?.id === tea.id, "recall finds the tea");
  step("recall", found.results.map((hit) => hit.id));

  const got = await memory.get({ agent_id: "a", ids: [tea.id, "missing-id"] });
  check(got.records.length === 1 && got.missing[0] === "missing-id", "get");
  step("get", got.records.map((record) => record.version));

  const listed = await memory.list({ agent_id: "a", limit: 1 });
  check(listed.records.length === 1, "list pages");
  const cursor = listed.next_cursor;
  check(cursor !== undefined && cursor !== null, "list gives a cursor");
  const next = await memory.list({ agent_id: "a", limit: 1, cursor: cursor as string });
  step("list", [listed.records[0]?.id, next.records[0]?.id]);

  const updated = await memory.update({
    agent_id: "a", id: tea.id, expected_version: 1, content: "Alice likes tea",
  });
  check(updated.version === 2, "update bumps the version");
  const stale = await refused(() =>
    memory.update({ agent_id: "a", id: tea.id, expected_version: 1, content: "stale" }),
  );
  check(stale.code === "conflict", "a stale update is a conflict");
  step("update", [updated.version, stale.code]);

  const batch = await memory.remember_batch({ requests: [fact("one"), fact("two")] });
  const [one, two] = batch.results.map((result) => result.id);
  const merged = await memory.merge({ agent_id: "a", canonical: one!, duplicates: [two!] });
  step("remember_batch+merge", [batch.results.length, merged.merged_count]);

  const expired = await memory.expire({
    agent_id: "a", policy: { older_than_days: 0 }, action: "archive",
  });
  const restored = await memory.restore({ agent_id: "a", ids: [tea.id] });
  check(restored.restored.includes(tea.id), "restore brings the archived record back");
  step("expire+restore", [expired.matched_count, restored.restored]);

  const forgotten = await memory.forget({ agent_id: "a", filter: { topic: "food" }, hard_delete: true });
  check(forgotten.forgotten_ids.includes(cake.id), "forget by filter");
  step("forget", forgotten.forgotten_ids);

  // the error envelope: refused here (the request breaks the spec), and by the server
  const local = await refused(() => memory.recall({ agent_id: "a", query: "tea", k: 0 }));
  check(local.code === "invalid_request" && local.envelope.details[0]?.path === "/k", "local");
  const unchecked = new HttpClient(url, { token, validate: false });
  const remote = await refused(() => unchecked.recall({ agent_id: "a", query: "tea", k: 0 }));
  check(remote.code === "invalid_request" && remote.envelope.details[0]?.rule === "minimum", "remote");
  check(remote.envelope["operation"] === "recall", "the server names the operation");
  step("invalid", [local.code, remote.code, remote.envelope.details]);

  // authentication: no token, and a token for another agent
  const anonymous = await refused(() => new HttpClient(url).recall({ agent_id: "a", query: "tea" }));
  check(anonymous.code === "unauthorized", "no token");
  const foreign = await refused(() => memory.remember(fact("not mine", "b")));
  check(foreign.code === "forbidden", "another agent");
  step("auth", [anonymous.code, foreign.code]);

  const down = await refused(() => new HttpClient("http://127.0.0.1:9", { timeoutMs: 2000 }).health());
  check(down.code === "unavailable", "an unreachable server");
  step("unreachable", down.code);
  step("done", true);
}

main().catch((error: unknown) => {
  console.log(JSON.stringify({ step: "failed", detail: String(error) }));
  process.exit(1);
});
