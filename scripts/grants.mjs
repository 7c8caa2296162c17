// Caller grants in Azurite's table, as the app reads them: one entity per grant, PartitionKey = the caller's object id
// (lower-case GUID), RowKey = the receiver id, GrantedBy, GrantedAt. Shared by `npm start` (the default local caller)
// and `npm run token --receivers` (a caller granted exactly the receivers asked for).
import { TableClient } from "@azure/data-tables";
import { azuriteConnection } from "./azurite.mjs";

/** The table the app reads grants from unless Grants:TableName says otherwise. */
export const grantsTable = "callergrants";

/** A receiver id as the app accepts one: 1-63 characters of a-z, 0-9 and '-'. */
export const receiverIdPattern = /^[a-z0-9-]{1,63}$/;

/** The table client for Azurite's table endpoint on `host`:`tablePort`. */
export function grantsClient(host, tablePort, table = grantsTable) {
  return TableClient.fromConnectionString(azuriteConnection(host, { table: tablePort }), table, { allowInsecureConnection: true });
}

/**
 * Makes `receivers` exactly the grants of caller `oid`: creates the table if needed, writes a grant per receiver and
 * deletes the caller's other grants. Other callers' grants are left alone.
 */
export async function setGrants(client, oid, receivers, grantedBy) {
  await client.createTable();
  const wanted = new Set(receivers);
  const filter = `PartitionKey eq '${oid.replaceAll("'", "''")}'`;
  for await (const entity of client.listEntities({ queryOptions: { filter, select: ["PartitionKey", "RowKey"] } })) {
    if (!wanted.has(entity.rowKey)) await client.deleteEntity(oid, entity.rowKey);
  }
  const grantedAt = new Date();
  for (const receiver of wanted) {
    await client.upsertEntity({ partitionKey: oid, rowKey: receiver, GrantedBy: grantedBy, GrantedAt: grantedAt }, "Replace");
  }
}
