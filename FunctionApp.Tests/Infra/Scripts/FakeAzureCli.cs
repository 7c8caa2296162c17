namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// A stand-in <c>az</c> on PATH for the deployment scripts: answers the few commands they use from environment
/// variables, logs every call, keeps a copy of any secret it is asked to create, and records violations.
/// </summary>
public sealed class FakeAzureCli : IDisposable
{
    private const string Script = """
        #!/usr/bin/env bash
        # Fake az for tests. FAKE_AZ_SHOW = exists | missing | forbidden | error (az resource show of the secret);
        # FAKE_AZ_CREATE = ok | deleted | error (az resource create). Any Key Vault data-plane call is recorded as a
        # violation (the pipeline's scripts must never need a Key Vault data role), unless FAKE_AZ_KV_SHOW is set: the
        # operator's receiver-key.sh. FAKE_AZ_KV_SHOW = exists | disabled | missing | forbidden | error (secret show);
        # FAKE_AZ_KV_SET = ok | deleted | error (secret set); FAKE_AZ_KV_VERSIONS = the tsv secret list-versions prints.
        echo "$*" >> "$FAKE_AZ_DIR/calls.log"
        for arg in "$@"; do
          if [[ -n "${FAKE_AZ_FORBIDDEN_TEXT:-}" && "$arg" == *"$FAKE_AZ_FORBIDDEN_TEXT"* ]]; then echo "secret on the command line" >> "$FAKE_AZ_DIR/violations"; fi
        done
        case "$1 $2" in
          "keyvault secret")
            if [[ -z "${FAKE_AZ_KV_SHOW:-}" ]]; then
              echo "Key Vault data plane used: $*" >> "$FAKE_AZ_DIR/violations"
              echo "ERROR: (Forbidden) Caller is not authorized. Code: ForbiddenByRbac" >&2; exit 1
            fi
            case "$3" in
              show)
                case "$FAKE_AZ_KV_SHOW" in
                  exists) echo "https://kv-test.vault.azure.net/secrets/receiver-partner-a/0123456789abcdef0123456789abcdef"; exit 0 ;;
                  disabled) echo "ERROR: (Forbidden) Operation get is not allowed on a disabled secret. Code: Forbidden Inner error: { \"code\": \"SecretDisabled\" }" >&2; exit 1 ;;
                  missing) echo "ERROR: (SecretNotFound) A secret with (name/id) receiver-partner-a was not found in this key vault. Code: SecretNotFound" >&2; exit 3 ;;
                  forbidden) echo "ERROR: (Forbidden) Caller is not authorized to perform action on resource. Code: Forbidden Inner error: { \"code\": \"ForbiddenByRbac\" }" >&2; exit 1 ;;
                  *) echo "ERROR: (ServiceUnavailable) try later" >&2; exit 1 ;;
                esac ;;
              set)
                # Stores what az would: the file's text (--encoding utf-8, the default) or its base64 (--encoding base64).
                file=""; encoding="utf-8"
                while [[ $# -gt 0 ]]; do
                  case "$1" in
                    --file|-f) file="$2" ;;
                    --encoding|-e) encoding="$2" ;;
                    --value) echo "secret value passed on the command line" >> "$FAKE_AZ_DIR/violations" ;;
                  esac
                  shift
                done
                stat -c '%a' "$file" > "$FAKE_AZ_DIR/kv-file-mode"
                case "$encoding" in
                  base64) base64 "$file" > "$FAKE_AZ_DIR/kv-stored-secret" ;;
                  *) cp "$file" "$FAKE_AZ_DIR/kv-stored-secret" ;;
                esac
                case "${FAKE_AZ_KV_SET:-ok}" in
                  ok) exit 0 ;;
                  deleted) rm -f "$FAKE_AZ_DIR/kv-stored-secret"; echo "ERROR: (Conflict) Secret receiver-partner-a is currently in a deleted but recoverable state, and its name cannot be reused; in this state, the secret can only be recovered or purged. Code: Conflict Inner error: { \"code\": \"ObjectIsDeletedButRecoverable\" }" >&2; exit 1 ;;
                  *) rm -f "$FAKE_AZ_DIR/kv-stored-secret"; echo "ERROR: (InternalServerError) boom" >&2; exit 1 ;;
                esac ;;
              set-attributes) exit 0 ;;
              list-versions) printf '%s\n' "${FAKE_AZ_KV_VERSIONS:-}"; exit 0 ;;
            esac ;;
          "resource show")
            case "$FAKE_AZ_SHOW" in
              exists) echo "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/secrets/key"; exit 0 ;;
              missing) echo "ERROR: (ResourceNotFound) The Resource 'Microsoft.KeyVault/vaults/kv-test/secrets/widget-signing-key' under resource group 'rg-test' was not found." >&2; exit 3 ;;
              forbidden) echo "ERROR: (AuthorizationFailed) The client does not have authorization to perform action." >&2; exit 1 ;;
              *) echo "ERROR: (ServiceUnavailable) try later" >&2; exit 1 ;;
            esac ;;
          "resource create")
            while [[ $# -gt 0 ]]; do
              if [[ "$1" == "--properties" && "$2" == @* ]]; then cp "${2#@}" "$FAKE_AZ_DIR/stored-properties"; fi
              if [[ "$1" == "--properties" && "$2" != @* ]]; then echo "properties passed on the command line" >> "$FAKE_AZ_DIR/violations"; fi
              shift
            done
            case "${FAKE_AZ_CREATE:-ok}" in
              ok) exit 0 ;;
              deleted) rm -f "$FAKE_AZ_DIR/stored-properties"; echo "ERROR: (Conflict) Secret widget-signing-key is currently in a deleted but recoverable state." >&2; exit 1 ;;
              *) rm -f "$FAKE_AZ_DIR/stored-properties"; echo "ERROR: (InternalServerError) boom" >&2; exit 1 ;;
            esac ;;
          "functionapp keys")
            # FAKE_AZ_KEY_FROM_CALL=n: the host has no keys (an error) until the n-th call, as on a cold start.
            count=$(( $(cat "$FAKE_AZ_DIR/key-calls" 2>/dev/null || echo 0) + 1 ))
            echo "$count" > "$FAKE_AZ_DIR/key-calls"
            if (( count < ${FAKE_AZ_KEY_FROM_CALL:-1} )); then echo "ERROR: (BadRequest) Encountered an error (ServiceUnavailable) from host runtime." >&2; exit 1; fi
            printf '%s\n' "$FAKE_AZ_FUNCTION_KEY"; exit 0 ;;
          "version "*)
            # FAKE_AZ_VERSION: the Azure CLI version az version reports (default 2.77.0).
            echo "${FAKE_AZ_VERSION:-2.77.0}"; exit 0 ;;
          "functionapp deployment")
            # FAKE_AZ_PUBLISH_FROM_CALL=n: the publish is refused with the storage 403 (the app's grant on its deployment
            # container not yet propagated) until the n-th call; FAKE_AZ_PUBLISH=error: refused for another reason.
            count=$(( $(cat "$FAKE_AZ_DIR/publish-calls" 2>/dev/null || echo 0) + 1 ))
            echo "$count" > "$FAKE_AZ_DIR/publish-calls"
            if [[ "${FAKE_AZ_PUBLISH:-ok}" == "error" ]]; then echo "ERROR: (NotFound) The Resource 'Microsoft.Web/sites/func-x' was not found." >&2; exit 1; fi
            if (( count < ${FAKE_AZ_PUBLISH_FROM_CALL:-1} )); then echo "ERROR: Status Code: 400, Details: BlobUploadFailedException: Failed to upload blob to storage account: Response status code does not indicate success: 403 (This request is not authorized to perform this operation using this permission.)." >&2; exit 1; fi
            exit 0 ;;
          "storage container")
            # The audit container's immutability policy (lock-audit-policy.sh). FAKE_AZ_POLICY = unlocked | locked |
            # locked-shorter | wrong-period | no-append | none | error (policy show, 365 days unless named otherwise);
            # FAKE_AZ_LOCK = ok | error (policy lock). A lock that succeeds is kept: the next show of an unlocked policy
            # answers locked, as Azure does.
            policy="${FAKE_AZ_POLICY:-unlocked}"
            if [[ "$policy" == "unlocked" && -f "$FAKE_AZ_DIR/policy-locked" ]]; then policy="locked"; fi
            case "$4" in
              show)
                case "$policy" in
                  unlocked) echo '{"name":"default","etag":"\"8dcafe0001\"","state":"Unlocked","immutabilityPeriodSinceCreationInDays":365,"allowProtectedAppendWrites":true}' ;;
                  locked) echo '{"name":"default","etag":"\"8dcafe0002\"","state":"Locked","immutabilityPeriodSinceCreationInDays":365,"allowProtectedAppendWrites":true}' ;;
                  locked-shorter) echo '{"name":"default","etag":"\"8dcafe0002\"","state":"Locked","immutabilityPeriodSinceCreationInDays":30,"allowProtectedAppendWrites":true}' ;;
                  wrong-period) echo '{"name":"default","etag":"\"8dcafe0003\"","state":"Unlocked","immutabilityPeriodSinceCreationInDays":30,"allowProtectedAppendWrites":true}' ;;
                  no-append) echo '{"name":"default","etag":"\"8dcafe0004\"","state":"Unlocked","immutabilityPeriodSinceCreationInDays":365,"allowProtectedAppendWrites":false}' ;;
                  none) echo '{"name":"default","etag":null,"state":null,"immutabilityPeriodSinceCreationInDays":null,"allowProtectedAppendWrites":null}' ;;
                  *) echo "ERROR: (AuthorizationFailed) The client does not have authorization to perform action 'Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies/read'." >&2; exit 1 ;;
                esac
                exit 0 ;;
              lock)
                if [[ "${FAKE_AZ_LOCK:-ok}" == "error" ]]; then echo "ERROR: (ContainerImmutabilityPolicyFailure) Operation not allowed on immutability policy with incorrect etag." >&2; exit 1; fi
                touch "$FAKE_AZ_DIR/policy-locked"; echo "Locked"; exit 0 ;;
            esac ;;
          "storage blob"|"functionapp restart"|"resource invoke-action") exit 0 ;;
          "storage entity")
            # FAKE_AZ_ENTITY = ok | forbidden; FAKE_AZ_ENTITIES = the tsv entity query prints.
            if [[ "${FAKE_AZ_ENTITY:-ok}" == "forbidden" ]]; then echo "ERROR: This request is not authorized to perform this operation using this permission. ErrorCode:AuthorizationPermissionMismatch" >&2; exit 1; fi
            if [[ "$3" == "query" ]]; then printf '%s\n' "${FAKE_AZ_ENTITIES:-}"; fi
            exit 0 ;;
          "ad sp")
            # FAKE_AZ_SP_ID: the object id az ad sp show prints; empty: no such service principal.
            if [[ -z "${FAKE_AZ_SP_ID:-}" ]]; then echo "ERROR: Service principal '$5' doesn't exist" >&2; exit 3; fi
            echo "$FAKE_AZ_SP_ID"; exit 0 ;;
          "account show") echo "${FAKE_AZ_USER:-operator@contoso.example}"; exit 0 ;;
          "account get-access-token")
            # FAKE_AZ_ACCESS_TOKEN: the token printed; empty: az's error for a resource it cannot get a token for.
            if [[ -z "${FAKE_AZ_ACCESS_TOKEN:-}" ]]; then echo "ERROR: AADSTS500011: The resource principal named api://x was not found in the tenant." >&2; exit 1; fi
            printf '%s\n' "$FAKE_AZ_ACCESS_TOKEN"; exit 0 ;;
          "functionapp config")
            # FAKE_AZ_APPSETTINGS: the tsv (name, value per line) the settings query prints; unset: not authorized.
            if [[ -z "${FAKE_AZ_APPSETTINGS+set}" ]]; then echo "ERROR: (AuthorizationFailed) The client does not have authorization to perform action 'Microsoft.Web/sites/config/list/action'." >&2; exit 1; fi
            printf '%b\n' "$FAKE_AZ_APPSETTINGS"; exit 0 ;;
          "storage message")
            case "$3" in
              put)
                while [[ $# -gt 0 ]]; do
                  if [[ "$1" == "--content" ]]; then printf '%s' "$2" > "$FAKE_AZ_DIR/put-content"; fi
                  shift
                done
                echo "${FAKE_AZ_MESSAGE_ID:-msg-1}"; exit 0 ;;
              peek) printf '%s\n' "${FAKE_AZ_PEEK:-}"; exit 0 ;;
            esac ;;
        esac
        echo "fake az: unexpected command: $*" >&2
        exit 2
        """;

    public FakeAzureCli()
    {
        Directory = System.IO.Directory.CreateTempSubdirectory("fake-az-").FullName;
        var path = Path.Combine(Directory, "az");
        Write(path, Script);

        // A curl in front of the real one that records any argument holding FAKE_AZ_FORBIDDEN_TEXT, so a test can
        // prove a secret never reaches a command line (where ps and /proc show it).
        var realCurl = (System.Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(':')
            .Select(d => Path.Combine(d, "curl")).FirstOrDefault(File.Exists) ?? "curl";
        Write(Path.Combine(Directory, "curl"), $$"""
            #!/usr/bin/env bash
            for arg in "$@"; do
              if [[ -n "${FAKE_AZ_FORBIDDEN_TEXT:-}" && "$arg" == *"$FAKE_AZ_FORBIDDEN_TEXT"* ]]; then echo "secret on curl's command line" >> "$FAKE_AZ_DIR/violations"; fi
            done
            exec "{{realCurl}}" "$@"
            """);
    }

    public string Directory { get; }

    public IReadOnlyList<string> Calls =>
        File.Exists(Path.Combine(Directory, "calls.log")) ? File.ReadAllLines(Path.Combine(Directory, "calls.log")) : [];

    /// <summary>The properties body of the secret the script created through Resource Manager, if any.</summary>
    public System.Text.Json.Nodes.JsonNode? StoredProperties =>
        File.Exists(Path.Combine(Directory, "stored-properties")) ? System.Text.Json.Nodes.JsonNode.Parse(File.ReadAllText(Path.Combine(Directory, "stored-properties"))) : null;

    /// <summary>The value the script set as a Key Vault secret through the data plane, as az would store it, if any.</summary>
    public string? KeyVaultStoredSecret =>
        File.Exists(Path.Combine(Directory, "kv-stored-secret")) ? File.ReadAllText(Path.Combine(Directory, "kv-stored-secret")) : null;

    /// <summary>The octal mode of the file the script gave <c>az keyvault secret set --file</c>, if any.</summary>
    public string? KeyVaultValueFileMode =>
        File.Exists(Path.Combine(Directory, "kv-file-mode")) ? File.ReadAllText(Path.Combine(Directory, "kv-file-mode")).Trim() : null;

    /// <summary>The content the script put on a queue (base64, as sent), if any.</summary>
    public string? PutContent =>
        File.Exists(Path.Combine(Directory, "put-content")) ? File.ReadAllText(Path.Combine(Directory, "put-content")) : null;

    /// <summary>The secret value the script stored, if any.</summary>
    public string? StoredSecret => (string?)StoredProperties?["value"];

    /// <summary>What the script did that it must not: a Key Vault data-plane call, a secret on a command line.</summary>
    public IReadOnlyList<string> Violations =>
        File.Exists(Path.Combine(Directory, "violations")) ? File.ReadAllLines(Path.Combine(Directory, "violations")) : [];

    /// <summary>The environment a script needs to find this az first.</summary>
    public Dictionary<string, string> Environment(params (string Name, string Value)[] settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var environment = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["PATH"] = $"{Directory}:{System.Environment.GetEnvironmentVariable("PATH")}",
            ["FAKE_AZ_DIR"] = Directory,
        };
        foreach (var (name, value) in settings)
        {
            environment[name] = value;
        }

        return environment;
    }

    public void Dispose() => System.IO.Directory.Delete(Directory, recursive: true);

    private static void Write(string path, string script)
    {
        File.WriteAllText(path, script.Replace("\r\n", "\n", StringComparison.Ordinal) + "\n");
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
    }
}
