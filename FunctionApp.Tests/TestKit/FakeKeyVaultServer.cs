using System.Globalization;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// A local HTTPS server that speaks the part of the Key Vault secrets REST API (7.x) the service uses:
/// challenge-based bearer auth, <c>GET /secrets/{name}/{version?}</c>, paged <c>GET /secrets/{name}/versions</c> and the
/// paged secret list <c>GET /secrets</c> (<c>$skiptoken</c>, <c>maxresults</c>).
/// Faults can be switched on to play an outage. It listens on 127.0.0.1 with a self-signed certificate, which only
/// <see cref="CreateHandler"/>'s handler trusts. Started with host names (<see cref="StartAsync(Func{DateTimeOffset}, string[])"/>),
/// it also answers as the Microsoft Entra authority its challenge names (<see cref="Authority"/>): instance discovery and the
/// client-credentials token endpoint, handing out <see cref="Token"/> to <see cref="ClientId"/> with <see cref="ClientSecret"/>,
/// so a process with only documented Azure.Identity environment (reaching it under those names through a tunnel) gets in.
/// </summary>
public sealed class FakeKeyVaultServer : IAsyncDisposable
{
    public const string Tenant = "72f988bf-0000-0000-0000-000000000000";
    public const string Resource = "https://vault.azure.net";

    /// <summary>The Entra host the challenge names (the public cloud's), served here for a client that reaches it through a tunnel.</summary>
    public const string Authority = "login.microsoftonline.com";

    private readonly object _gate = new();
    private readonly Dictionary<string, List<StoredVersion>> _secrets = new(StringComparer.OrdinalIgnoreCase);
    private readonly HashSet<string> _hostsSeen = new(StringComparer.OrdinalIgnoreCase);
    private readonly Func<DateTimeOffset> _clock;
    private readonly X509Certificate2 _certificate;
    private WebApplication? _app;
    private int _secretReads;
    private int _listReads;
    private int _secretListReads;
    private int _notFound;
    private int _challenges;
    private int _faulted;
    private int _tokensIssued;

    private FakeKeyVaultServer(Func<DateTimeOffset> clock, X509Certificate2 certificate)
    {
        _clock = clock;
        _certificate = certificate;
    }

    public Uri VaultUri { get; private set; } = null!;

    /// <summary>
    /// Whether an earlier fake vault in this process listened on the same port: the Key Vault SDK caches a vault's 401
    /// challenge per host and port for the whole process, so a client of this one may skip the challenge.
    /// </summary>
    public bool PortUsedBefore { get; private set; }

    private static readonly System.Collections.Concurrent.ConcurrentDictionary<int, bool> PortsUsed = new();

    public string Token { get; private set; } = "test-token-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(8));

    /// <summary>The application (client) id the token endpoint accepts, with <see cref="ClientSecret"/>.</summary>
    public string ClientId { get; } = Guid.NewGuid().ToString();

    /// <summary>The client secret the token endpoint accepts.</summary>
    public string ClientSecret { get; } = "secret-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(16));

    /// <summary>This server's certificate (PEM), for a process that should trust it.</summary>
    public string CertificatePem => _certificate.ExportCertificatePem();

    /// <summary>Where the server listens (127.0.0.1 and a free port), for a tunnel to forward to.</summary>
    public System.Net.IPEndPoint Endpoint { get; private set; } = null!;

    /// <summary>Access tokens handed out by the token endpoint.</summary>
    public int TokensIssued => Volatile.Read(ref _tokensIssued);

    /// <summary>When true, <c>GET /secrets/{name}/versions</c> answers 500 while reads of a version still work.</summary>
    public bool FailVersionsList { get; set; }

    /// <summary>Stops accepting the token handed out so far (what removing the app's identity does): every request gets 401.</summary>
    public void RevokeToken() => Token = "revoked-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(8));

    /// <summary>Deletes the secret with all its versions (what <c>az keyvault secret delete</c> does): reads answer 404.</summary>
    public void Delete(string name)
    {
        lock (_gate)
        {
            _secrets.Remove(name);
        }
    }

    /// <summary>The fault every request currently meets (after counting), or <see cref="FakeKeyVaultFault.None"/>.</summary>
    public FakeKeyVaultFault Fault { get; set; }

    /// <summary>The <c>Retry-After</c> seconds sent with <see cref="FakeKeyVaultFault.Throttle"/>.</summary>
    public int ThrottleRetryAfterSeconds { get; set; } = 1;

    /// <summary>How many versions one page of the versions list holds (small, so paging is exercised).</summary>
    public int PageSize { get; set; } = 2;

    /// <summary>Authorized reads of a secret's value.</summary>
    public int SecretReads => Volatile.Read(ref _secretReads);

    /// <summary>Authorized reads of a page of versions.</summary>
    public int ListReads => Volatile.Read(ref _listReads);

    /// <summary>Authorized reads of a page of the secret list (<c>GET /secrets</c>).</summary>
    public int SecretListReads => Volatile.Read(ref _secretListReads);

    /// <summary>Authorized requests answered 404 (no such secret or version, or not part of the fake vault).</summary>
    public int NotFound => Volatile.Read(ref _notFound);

    /// <summary>How many secrets one page of the secret list holds when the request names no <c>maxresults</c>.</summary>
    public int SecretListPageSize { get; set; } = 25;

    /// <summary>Every request host the server saw (the vault's own name, or any other a client was sent to).</summary>
    public IReadOnlyCollection<string> HostsSeen
    {
        get
        {
            lock (_gate)
            {
                return [.. _hostsSeen];
            }
        }
    }

    /// <summary>401 challenges sent.</summary>
    public int Challenges => Volatile.Read(ref _challenges);

    /// <summary>Requests answered with a fault.</summary>
    public int Faulted => Volatile.Read(ref _faulted);

    /// <summary>Every request that reached the server (authorized or not, faulted or not).</summary>
    public int Requests => SecretReads + ListReads + SecretListReads + NotFound + Challenges + Faulted;

    public static Task<FakeKeyVaultServer> StartAsync(Func<DateTimeOffset> clock) => StartAsync(clock, []);

    /// <summary>Starts the server with a certificate also valid for <paramref name="hostNames"/> (e.g. <c>*.vault.azure.net</c>).</summary>
    public static async Task<FakeKeyVaultServer> StartAsync(Func<DateTimeOffset> clock, params string[] hostNames)
    {
        var server = new FakeKeyVaultServer(clock, TestCertificate.Create(hostNames));
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrelHttpsConfiguration();
        builder.WebHost.ConfigureKestrel(kestrel =>
            kestrel.Listen(IPAddress.Loopback, 0, listen => listen.UseHttps(server._certificate)));
        var app = builder.Build();
        app.Run(server.HandleAsync);
        await app.StartAsync().ConfigureAwait(false);

        var address = app.Urls.Single();
        server.VaultUri = new Uri(address.TrimEnd('/') + "/", UriKind.Absolute);
        server.PortUsedBefore = !PortsUsed.TryAdd(server.VaultUri.Port, true);
        server.Endpoint = new System.Net.IPEndPoint(IPAddress.Loopback, server.VaultUri.Port);
        server._app = app;
        return server;
    }

    /// <summary>A handler that trusts this server's certificate (and nothing else).</summary>
    public HttpMessageHandler CreateHandler() => new SocketsHttpHandler
    {
        SslOptions =
        {
            RemoteCertificateValidationCallback = (_, certificate, _, _) =>
                certificate is not null && string.Equals(certificate.GetCertHashString(), _certificate.Thumbprint, StringComparison.OrdinalIgnoreCase),
        },
    };

    /// <summary>Stores a new version (like <c>az keyvault secret set</c>) and returns its version id.</summary>
    public string SetSecret(string name, string value, bool enabled = true, DateTimeOffset? expiresOn = null, DateTimeOffset? notBefore = null)
    {
        var version = Convert.ToHexString(RandomNumberGenerator.GetBytes(16)).ToLowerInvariant();
        lock (_gate)
        {
            if (!_secrets.TryGetValue(name, out var versions))
            {
                _secrets[name] = versions = [];
            }

            // Key Vault stamps creation in whole seconds; keep each new version strictly newer, as time would.
            var created = _clock();
            if (versions.Count > 0 && created <= versions[^1].Created)
            {
                created = versions[^1].Created.AddSeconds(1);
            }

            versions.Add(new StoredVersion(version, value, created, enabled, expiresOn, notBefore));
        }

        return version;
    }

    /// <summary>Disables a version (what an operator does to revoke it).</summary>
    public void Disable(string name, string version) => SetEnabled(name, version, enabled: false);

    /// <summary>Enables a version again (what an operator does to undo a revocation).</summary>
    public void Enable(string name, string version) => SetEnabled(name, version, enabled: true);

    private void SetEnabled(string name, string version, bool enabled)
    {
        lock (_gate)
        {
            var versions = _secrets[name];
            var index = versions.FindIndex(v => v.Version == version);
            versions[index] = versions[index] with { Enabled = enabled };
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.StopAsync().ConfigureAwait(false);
            await _app.DisposeAsync().ConfigureAwait(false);
        }

        _certificate.Dispose();
    }

    private async Task HandleAsync(HttpContext context)
    {
        var request = context.Request;
        var response = context.Response;
        lock (_gate)
        {
            _hostsSeen.Add(request.Host.Value ?? string.Empty);
        }

        if (string.Equals(request.Host.Host, Authority, StringComparison.OrdinalIgnoreCase))
        {
            await HandleAuthorityAsync(request, response).ConfigureAwait(false);
            return;
        }

        if (!request.Query.ContainsKey("api-version"))
        {
            await WriteErrorAsync(response, 400, "BadParameter", "The api-version parameter is required.").ConfigureAwait(false);
            return;
        }

        if (!string.Equals(request.Headers.Authorization, "Bearer " + Token, StringComparison.Ordinal))
        {
            // What a real vault answers to a request without a (valid) token: the authority and resource to get one for.
            Interlocked.Increment(ref _challenges);
            response.StatusCode = 401;
            response.Headers.WWWAuthenticate = $"Bearer authorization=\"https://login.microsoftonline.com/{Tenant}\", resource=\"{Resource}\"";
            await WriteErrorAsync(response, 401, "Unauthorized", "AKV10000: Request is missing a Bearer or PoP token.").ConfigureAwait(false);
            return;
        }

        switch (Fault)
        {
            case FakeKeyVaultFault.ServerError:
                Interlocked.Increment(ref _faulted);
                await WriteErrorAsync(response, 500, "InternalServerError", "The fake vault is failing on purpose.").ConfigureAwait(false);
                return;
            case FakeKeyVaultFault.Throttle:
                Interlocked.Increment(ref _faulted);
                response.Headers.RetryAfter = ThrottleRetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
                await WriteErrorAsync(response, 429, "Throttled", "Request was not processed because too many requests were received.").ConfigureAwait(false);
                return;
            case FakeKeyVaultFault.Hang:
                Interlocked.Increment(ref _faulted);
                try
                {
                    // Longer than any client timeout in the tests: the client gives up first.
                    await Task.Delay(TimeSpan.FromSeconds(30), context.RequestAborted).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }

                await WriteErrorAsync(response, 500, "InternalServerError", "Hung.").ConfigureAwait(false);
                return;
        }

        var segments = request.Path.Value!.Split('/', StringSplitOptions.RemoveEmptyEntries);
        if (request.Method == HttpMethods.Get && segments is ["secrets"])
        {
            Interlocked.Increment(ref _secretListReads);
            await WriteSecretListPageAsync(request, response).ConfigureAwait(false);
            return;
        }

        if (request.Method != HttpMethods.Get || segments.Length is < 2 or > 3 || segments[0] != "secrets")
        {
            Interlocked.Increment(ref _notFound);
            await WriteErrorAsync(response, 404, "NotFound", "Not part of the fake vault.").ConfigureAwait(false);
            return;
        }

        var name = segments[1];
        if (FailVersionsList && segments.Length == 3 && segments[2] == "versions")
        {
            Interlocked.Increment(ref _faulted);
            await WriteErrorAsync(response, 500, "InternalServerError", "The versions list is failing on purpose.").ConfigureAwait(false);
            return;
        }

        List<StoredVersion> versions;
        lock (_gate)
        {
            versions = _secrets.TryGetValue(name, out var stored) ? [.. stored] : [];
        }

        if (versions.Count == 0)
        {
            Interlocked.Increment(ref _notFound);
            await WriteErrorAsync(response, 404, "SecretNotFound", $"A secret with (name/id) {name} was not found in this key vault.").ConfigureAwait(false);
            return;
        }

        if (segments.Length == 3 && segments[2] == "versions")
        {
            Interlocked.Increment(ref _listReads);
            await WriteVersionsPageAsync(request, response, name, versions).ConfigureAwait(false);
            return;
        }

        Interlocked.Increment(ref _secretReads);
        var found = segments.Length == 2 ? versions[^1] : versions.Find(v => v.Version == segments[2]);
        if (found is null)
        {
            await WriteErrorAsync(response, 404, "SecretNotFound", $"A secret with (name/id) {name}/{segments[2]} was not found in this key vault.").ConfigureAwait(false);
            return;
        }

        if (!found.Enabled)
        {
            await WriteErrorAsync(response, 403, "Forbidden", "Operation get is not allowed on a disabled secret.").ConfigureAwait(false);
            return;
        }

        await WriteJsonAsync(response, 200, json =>
        {
            json.WriteStartObject();
            json.WriteString("value", found.Value);
            WriteItem(json, BaseUri(request), name, found);
            json.WriteEndObject();
        }).ConfigureAwait(false);
    }

    /// <summary>
    /// One page of every secret (its newest version's attributes, id without a version, as Key Vault lists them), in name
    /// order; <c>maxresults</c> is the page size (1-25) and <c>$skiptoken</c> has Key Vault's shape (<see cref="SkipTokenFor"/>).
    /// </summary>
    private async Task WriteSecretListPageAsync(HttpRequest request, HttpResponse response)
    {
        string? from = null;
        if (request.Query.TryGetValue("$skiptoken", out var skipToken) && (from = NameInSkipToken(skipToken.ToString())) is null)
        {
            // What a real vault answers to a skip token it did not hand out.
            await WriteErrorAsync(response, 400, "BadParameter", "The skip token is not valid.").ConfigureAwait(false);
            return;
        }

        var size = int.TryParse(request.Query["maxresults"], NumberStyles.None, CultureInfo.InvariantCulture, out var max) ? max : SecretListPageSize;
        if (size is < 1 or > 25)
        {
            await WriteErrorAsync(response, 400, "BadParameter", "maxresults must be between 1 and 25.").ConfigureAwait(false);
            return;
        }

        List<(string Name, StoredVersion Newest)> page;
        string? next;
        lock (_gate)
        {
            var names = _secrets.Where(s => s.Value.Count > 0).Select(s => s.Key).Order(StringComparer.OrdinalIgnoreCase).ToList();
            var skip = from is null ? 0 : names.FindIndex(n => StringComparer.OrdinalIgnoreCase.Compare(n, from) >= 0);
            skip = skip < 0 ? names.Count : skip;
            page = [.. names.Skip(skip).Take(size).Select(n => (n, _secrets[n][^1]))];
            next = skip + page.Count < names.Count ? names[skip + page.Count] : null;
        }

        await WriteJsonAsync(response, 200, json =>
        {
            json.WriteStartObject();
            json.WriteStartArray("value");
            foreach (var (name, newest) in page)
            {
                json.WriteStartObject();
                WriteItem(json, BaseUri(request), name, newest, withVersion: false);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            if (next is not null)
            {
                json.WriteString("nextLink", new Uri(BaseUri(request), $"secrets?api-version={request.Query["api-version"]}&$skiptoken={SkipTokenFor(next)}&maxresults={size}").AbsoluteUri);
            }
            else
            {
                json.WriteNull("nextLink");
            }

            json.WriteEndObject();
        }).ConfigureAwait(false);
    }

    /// <summary>
    /// A skip token shaped as Key Vault's: unpadded base64 of <c>{"NextMarker":"2!&lt;n&gt;!&lt;base64 of the next secret's
    /// upper-cased name and a date&gt;","TargetLocation":0}</c>, so it grows with the name as a real one does (about 270
    /// characters for a 72-character name).
    /// </summary>
    public static string SkipTokenFor(string nextName)
    {
        var inner = Convert.ToBase64String(Encoding.UTF8.GetBytes(
            $"{nextName.Length + 7:D6}!secret/{nextName.ToUpperInvariant()}!000028!9999-12-31T23:59:59.9999999Z!")).Replace('=', '-');
        var marker = JsonSerializer.Serialize(new { NextMarker = $"2!{inner.Length}!{inner}", TargetLocation = 0 });
        return Convert.ToBase64String(Encoding.UTF8.GetBytes(marker)).TrimEnd('=');
    }

    /// <summary>The secret name a skip token of <see cref="SkipTokenFor"/>'s shape starts at; null for anything else.</summary>
    private static string? NameInSkipToken(string token)
    {
        try
        {
            var padded = token + new string('=', (4 - (token.Length % 4)) % 4);
            using var json = JsonDocument.Parse(Convert.FromBase64String(padded));
            var parts = json.RootElement.GetProperty("NextMarker").GetString()!.Split('!');
            var inner = Encoding.UTF8.GetString(Convert.FromBase64String(parts[2].Replace('-', '=')));
            var name = inner.Split('!')[1];
            return name.StartsWith("secret/", StringComparison.Ordinal) ? name["secret/".Length..] : null;
        }
        catch (Exception ex) when (ex is FormatException or JsonException or KeyNotFoundException or IndexOutOfRangeException or InvalidOperationException)
        {
            return null;
        }
    }

    private async Task WriteVersionsPageAsync(HttpRequest request, HttpResponse response, string name, List<StoredVersion> versions)
    {
        var skip = int.TryParse(request.Query["$skiptoken"], NumberStyles.None, CultureInfo.InvariantCulture, out var token) ? token : 0;
        var page = versions.Skip(skip).Take(PageSize).ToList();
        var more = skip + page.Count < versions.Count;
        await WriteJsonAsync(response, 200, json =>
        {
            json.WriteStartObject();
            json.WriteStartArray("value");
            foreach (var version in page)
            {
                json.WriteStartObject();
                WriteItem(json, BaseUri(request), name, version);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            if (more)
            {
                json.WriteString("nextLink", new Uri(BaseUri(request), $"secrets/{name}/versions?api-version={request.Query["api-version"]}&$skiptoken={skip + page.Count}&maxresults={PageSize}").AbsoluteUri);
            }
            else
            {
                json.WriteNull("nextLink");
            }

            json.WriteEndObject();
        }).ConfigureAwait(false);
    }

    /// <summary>The vault as the client named it (ids and next links use it, as a real vault's do).</summary>
    private static Uri BaseUri(HttpRequest request) => new($"https://{request.Host}/", UriKind.Absolute);

    private static void WriteItem(Utf8JsonWriter json, Uri vault, string name, StoredVersion version, bool withVersion = true)
    {
        json.WriteString("id", new Uri(vault, withVersion ? $"secrets/{name}/{version.Version}" : $"secrets/{name}").AbsoluteUri);
        json.WriteStartObject("attributes");
        json.WriteBoolean("enabled", version.Enabled);
        json.WriteNumber("created", version.Created.ToUnixTimeSeconds());
        json.WriteNumber("updated", version.Created.ToUnixTimeSeconds());
        if (version.ExpiresOn is { } expires)
        {
            json.WriteNumber("exp", expires.ToUnixTimeSeconds());
        }

        if (version.NotBefore is { } notBefore)
        {
            json.WriteNumber("nbf", notBefore.ToUnixTimeSeconds());
        }

        json.WriteString("recoveryLevel", "Recoverable+Purgeable");
        json.WriteEndObject();
        json.WriteStartObject("tags");
        json.WriteEndObject();
    }

    /// <summary>
    /// The Entra endpoints a confidential client uses: instance discovery (the public cloud's aliases) and
    /// <c>POST /{tenant}/oauth2/v2.0/token</c> with <c>grant_type=client_credentials</c> for the vault's scope.
    /// </summary>
    private async Task HandleAuthorityAsync(HttpRequest request, HttpResponse response)
    {
        var path = request.Path.Value ?? string.Empty;
        if (request.Method == HttpMethods.Get && path == "/common/discovery/instance")
        {
            await WriteJsonAsync(response, 200, json =>
            {
                json.WriteStartObject();
                json.WriteString("tenant_discovery_endpoint", $"https://{Authority}/{Tenant}/v2.0/.well-known/openid-configuration");
                json.WriteString("api-version", "1.1");
                json.WriteStartArray("metadata");
                json.WriteStartObject();
                json.WriteString("preferred_network", Authority);
                json.WriteString("preferred_cache", "login.windows.net");
                json.WriteStartArray("aliases");
                foreach (var alias in new[] { Authority, "login.windows.net", "login.microsoft.com", "sts.windows.net" })
                {
                    json.WriteStringValue(alias);
                }

                json.WriteEndArray();
                json.WriteEndObject();
                json.WriteEndArray();
                json.WriteEndObject();
            }).ConfigureAwait(false);
            return;
        }

        if (request.Method != HttpMethods.Post || path != $"/{Tenant}/oauth2/v2.0/token" || !request.HasFormContentType)
        {
            await WriteTokenErrorAsync(response, 404, "invalid_request", "AADSTS90002: not part of the fake authority.").ConfigureAwait(false);
            return;
        }

        var form = await request.ReadFormAsync().ConfigureAwait(false);
        if (form["grant_type"] != "client_credentials" || form["client_id"] != ClientId || form["client_secret"] != ClientSecret)
        {
            await WriteTokenErrorAsync(response, 401, "invalid_client", "AADSTS7000215: Invalid client secret provided.").ConfigureAwait(false);
            return;
        }

        if (form["scope"] != Resource + "/.default")
        {
            await WriteTokenErrorAsync(response, 400, "invalid_scope", $"AADSTS70011: The provided scope '{form["scope"]}' is not valid here.").ConfigureAwait(false);
            return;
        }

        Interlocked.Increment(ref _tokensIssued);
        var token = Token;
        await WriteJsonAsync(response, 200, json =>
        {
            json.WriteStartObject();
            json.WriteString("token_type", "Bearer");
            json.WriteNumber("expires_in", 3599);
            json.WriteNumber("ext_expires_in", 3599);
            json.WriteString("access_token", token);
            json.WriteEndObject();
        }).ConfigureAwait(false);
    }

    private static Task WriteTokenErrorAsync(HttpResponse response, int status, string error, string description) =>
        WriteJsonAsync(response, status, json =>
        {
            json.WriteStartObject();
            json.WriteString("error", error);
            json.WriteString("error_description", description);
            json.WriteEndObject();
        });

    private static Task WriteErrorAsync(HttpResponse response, int status, string code, string message) =>
        WriteJsonAsync(response, status, json =>
        {
            json.WriteStartObject();
            json.WriteStartObject("error");
            json.WriteString("code", code);
            json.WriteString("message", message);
            json.WriteEndObject();
            json.WriteEndObject();
        });

    private static async Task WriteJsonAsync(HttpResponse response, int status, Action<Utf8JsonWriter> write)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            write(json);
        }

        response.StatusCode = status;
        response.ContentType = "application/json; charset=utf-8";
        response.ContentLength = buffer.Length;
        await response.Body.WriteAsync(buffer.GetBuffer().AsMemory(0, (int)buffer.Length)).ConfigureAwait(false);
    }

    private sealed record StoredVersion(string Version, string Value, DateTimeOffset Created, bool Enabled, DateTimeOffset? ExpiresOn, DateTimeOffset? NotBefore);
}
