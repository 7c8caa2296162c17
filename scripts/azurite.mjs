// Azurite's development account, shared by the scripts that point a client or a host at an Azurite on moved ports
// (UseDevelopmentStorage=true only knows 10000-10002). The key is the emulator's published one, not a secret.
const account = "devstoreaccount1";
const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/** A connection string for Azurite on `host`, naming the endpoint of each service given a port (blob, queue, table). */
export function azuriteConnection(host, ports) {
  const endpoints = [["blob", "BlobEndpoint"], ["queue", "QueueEndpoint"], ["table", "TableEndpoint"]]
    .filter(([service]) => ports[service] !== undefined)
    .map(([service, name]) => `${name}=http://${host}:${ports[service]}/${account};`)
    .join("");
  return `DefaultEndpointsProtocol=http;AccountName=${account};AccountKey=${key};${endpoints}`;
}
