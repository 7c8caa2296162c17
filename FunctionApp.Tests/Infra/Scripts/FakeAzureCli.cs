namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// A stand-in <c>az</c> on PATH for the deployment scripts: answers the few commands they use from environment
/// variables, logs every call, and keeps a copy of any secret value it is asked to store.
/// </summary>
public sealed class FakeAzureCli : IDisposable
{
    private const string Script = """
        #!/usr/bin/env bash
        # Fake az for tests: FAKE_AZ_SHOW = exists | missing | forbidden | error; FAKE_AZ_DELETED = yes | no.
        echo "$*" >> "$FAKE_AZ_DIR/calls.log"
        case "$1 $2 $3" in
          "keyvault secret show")
            if [[ " $* " == *" --query value "* ]]; then printf '%s\n' "$FAKE_AZ_SECRET_VALUE"; exit 0; fi
            case "$FAKE_AZ_SHOW" in
              exists) echo "https://vault/secrets/key/abc"; exit 0 ;;
              missing) echo "ERROR: (SecretNotFound) A secret with (name/id) key was not found in this key vault." >&2; exit 3 ;;
              forbidden) echo "ERROR: (Forbidden) Caller is not authorized. Code: ForbiddenByRbac" >&2; exit 1 ;;
              *) echo "ERROR: (ServiceUnavailable) try later" >&2; exit 1 ;;
            esac ;;
          "keyvault secret show-deleted")
            if [[ "$FAKE_AZ_DELETED" == "yes" ]]; then echo "https://vault/deletedsecrets/key"; exit 0; fi
            echo "ERROR: (SecretNotFound) Deleted Secret not found" >&2; exit 3 ;;
          "keyvault secret set")
            while [[ $# -gt 0 ]]; do
              if [[ "$1" == "--file" ]]; then cp "$2" "$FAKE_AZ_DIR/stored-secret"; fi
              if [[ "$1" == "--value" ]]; then echo "secret passed on the command line" >> "$FAKE_AZ_DIR/violations"; fi
              shift
            done
            exit 0 ;;
          "functionapp keys list")
            printf '%s\n' "$FAKE_AZ_FUNCTION_KEY"; exit 0 ;;
        esac
        echo "fake az: unexpected command: $*" >&2
        exit 2
        """;

    public FakeAzureCli()
    {
        Directory = System.IO.Directory.CreateTempSubdirectory("fake-az-").FullName;
        var path = Path.Combine(Directory, "az");
        File.WriteAllText(path, Script.Replace("\r\n", "\n", StringComparison.Ordinal) + "\n");
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
    }

    public string Directory { get; }

    public IReadOnlyList<string> Calls =>
        File.Exists(Path.Combine(Directory, "calls.log")) ? File.ReadAllLines(Path.Combine(Directory, "calls.log")) : [];

    public string? StoredSecret =>
        File.Exists(Path.Combine(Directory, "stored-secret")) ? File.ReadAllText(Path.Combine(Directory, "stored-secret")) : null;

    public bool SawSecretOnCommandLine => File.Exists(Path.Combine(Directory, "violations"));

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
}
