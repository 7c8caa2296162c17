using System.Buffers;
using System.Text.Json;
using Microsoft.AspNetCore.Http;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers;

/// <summary>
/// The caller App Service Authentication vouches for: the principal it passes in <c>X-MS-CLIENT-PRINCIPAL</c>, base64
/// JSON <c>{auth_typ, claims:[{typ,val}], name_typ, role_typ}</c> (Microsoft Learn, "Work with user identities in Azure
/// App Service authentication": external requests may not set these headers; they are present only when App Service
/// sets them). Read only where <see cref="IsVouchedFor"/> holds; everywhere else the header is refused. Each claim read
/// has one claim type, the one the platform passes for an Entra access token: <c>oid</c> and <c>tid</c> in their long
/// forms after its default claim mapping (<c>http://schemas.microsoft.com/identity/claims/objectidentifier</c>,
/// <c>…/tenantid</c>), <c>roles</c>, <c>aud</c>, and <c>azp</c> (v2) or <c>appid</c> (v1), never both. Platform
/// authentication validates v2 tokens, whose <c>roles</c> it passes unmapped (Microsoft.Identity.Web,
/// AzureAD/microsoft-identity-web pull request 2166, <c>AppServicesAuthenticationInformation</c>). A claim read appears
/// once (<c>roles</c> once per role); a claim we read under another type (<c>oid</c>, <c>tid</c>, <c>role</c>,
/// <c>http://schemas.microsoft.com/ws/2008/06/identity/claims/role</c>) is refused, so no second spelling can add a
/// caller, a tenant or a role. Bounded and linear: one header of at most <see cref="MaxHeaderLength"/> characters, at most
/// <see cref="MaxClaims"/> claims, JSON at most four levels deep; every refusal is fixed words, never the header.
/// </summary>
internal static class PlatformPrincipal
{
    /// <summary>The header App Service Authentication passes the principal in.</summary>
    public const string HeaderName = "X-MS-CLIENT-PRINCIPAL";

    /// <summary>
    /// The environment variable App Service sets to <c>True</c> when its authentication is on. The Functions host reads
    /// the same variable, with <see cref="bool.TryParse(string?, out bool)"/>, before it builds an identity from
    /// <c>x-ms-client-principal</c> (azure-functions-host@89dc438d, src/WebJobs.Script/Environment/EnvironmentExtensions.cs
    /// <c>IsEasyAuthEnabled</c>, src/WebJobs.Script.WebHost/Security/Authentication/Keys/AuthenticationLevelHandler.cs).
    /// </summary>
    public const string EnabledVariable = "WEBSITE_AUTH_ENABLED";

    /// <summary>The longest principal header read, in characters (the bearer header's bound).</summary>
    public const int MaxHeaderLength = AuthOptions.MaxAuthorizationLength;

    /// <summary>The most claims a principal may carry (an Entra token with 200 groups has about 230).</summary>
    public const int MaxClaims = 300;

    /// <summary>The only <c>auth_typ</c> accepted: Microsoft Entra (the <c>azureActiveDirectory</c> provider).</summary>
    public const string EntraAuthType = "aad";

    private const string ObjectIdLong = "http://schemas.microsoft.com/identity/claims/objectidentifier";
    private const string TenantIdLong = "http://schemas.microsoft.com/identity/claims/tenantid";
    private const string RoleLong = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role";

    /// <summary>
    /// Whether the platform vouches for the header: <c>Auth:PlatformAuthentication</c> is on and
    /// <paramref name="websiteAuthEnabled"/> (<see cref="EnabledVariable"/>) is true as the Functions host parses it.
    /// </summary>
    public static bool IsVouchedFor(AuthOptions options, string? websiteAuthEnabled)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.PlatformAuthentication && IsPlatformAuthenticationOn(websiteAuthEnabled);
    }

    /// <summary>The host's own reading of <see cref="EnabledVariable"/>: <see cref="bool.TryParse(string?, out bool)"/>, anything else off.</summary>
    public static bool IsPlatformAuthenticationOn(string? websiteAuthEnabled) =>
        bool.TryParse(websiteAuthEnabled, out var enabled) && enabled;

    /// <summary>Whether <paramref name="request"/> carries <c>X-MS-CLIENT-PRINCIPAL</c> or any <c>X-MS-CLIENT-PRINCIPAL-*</c> header.</summary>
    public static bool IsPresent(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        foreach (var header in request.Headers)
        {
            if (header.Key.StartsWith(HeaderName, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The caller the request's principal names, checked against <paramref name="options"/>.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.Unauthenticated"/>: no principal, more than one, or one that is malformed, too large, not Entra's, or for another tenant or audience (401).</exception>
    public static CallerIdentity Read(HttpRequest request, AuthOptions options)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(options);
        var values = request.Headers[HeaderName];
        if (values.Count == 0)
        {
            throw Problems.Unauthenticated($"The request has no {HeaderName} header from App Service Authentication; send an Entra access token for this app as 'Authorization: Bearer <token>'.", errorCode: null);
        }

        if (values.Count > 1)
        {
            throw Problems.Unauthenticated($"The request has more than one {HeaderName} header.", Problems.InvalidRequestCode);
        }

        var value = values[0] ?? string.Empty;
        if (value.Length > MaxHeaderLength)
        {
            throw Problems.Unauthenticated($"The {HeaderName} header is longer than {MaxHeaderLength} characters.");
        }

        var buffer = ArrayPool<byte>.Shared.Rent(Math.Max(1, value.Length / 4 * 3 + 3));
        try
        {
            if (value.Length == 0 || !Convert.TryFromBase64String(value, buffer, out var length))
            {
                throw Problems.Unauthenticated($"The {HeaderName} header is not base64.");
            }

            return FromJson(buffer.AsMemory(0, length), options);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer, clearArray: true);
        }
    }

    private static CallerIdentity FromJson(ReadOnlyMemory<byte> json, AuthOptions options)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json, new JsonDocumentOptions { MaxDepth = 4 });
        }
        catch (JsonException e)
        {
            throw Problems.Unauthenticated($"The {HeaderName} header is not a JSON principal.", innerException: e);
        }

        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                throw Malformed();
            }

            string? authType = null;
            JsonElement? claims = null;
            foreach (var property in root.EnumerateObject())
            {
                if (property.NameEquals("auth_typ"))
                {
                    authType = authType is null && property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString() : throw Malformed();
                }
                else if (property.NameEquals("claims"))
                {
                    claims = claims is null && property.Value.ValueKind == JsonValueKind.Array ? property.Value : throw Malformed();
                }
            }

            if (!string.Equals(authType, EntraAuthType, StringComparison.Ordinal))
            {
                throw Problems.Unauthenticated($"The {HeaderName} principal is not from Microsoft Entra (auth_typ).");
            }

            if (claims is not { } list)
            {
                throw Malformed();
            }

            return FromClaims(list, options);
        }
    }

    private static CallerIdentity FromClaims(JsonElement claims, AuthOptions options)
    {
        if (claims.GetArrayLength() > MaxClaims)
        {
            throw Problems.Unauthenticated($"The {HeaderName} principal has more than {MaxClaims} claims.");
        }

        string? objectId = null, tenantId = null, appId = null, audience = null;
        var roles = new List<string>();
        foreach (var claim in claims.EnumerateArray())
        {
            var (type, value) = Claim(claim);
            switch (type)
            {
                case ObjectIdLong: objectId = Single(objectId, value, "oid"); break;
                case TenantIdLong: tenantId = Single(tenantId, value, "tid"); break;
                case "azp" or "appid": appId = Single(appId, value, "azp or appid"); break;
                case "aud": audience = Single(audience, value, "aud"); break;
                case "roles": roles.Add(value); break;
                case "oid" or "tid" or "role" or RoleLong: throw OtherSpelling(type);
                default: break;
            }
        }

        // Defence in depth: the platform already checked both, against the configuration Bicep gave it.
        if (audience is null || !options.Audiences.Contains(audience, StringComparer.Ordinal))
        {
            throw Problems.Unauthenticated($"The {HeaderName} principal is not for this app (aud).");
        }

        var caller = CallerIdentity.FromClaims(objectId, tenantId, appId, roles);
        return Guid.TryParse(options.TenantId, out var tenant) && string.Equals(caller.TenantId, tenant.ToString("D"), StringComparison.Ordinal)
            ? caller
            : throw Problems.Unauthenticated($"The {HeaderName} principal is for another tenant (tid).");
    }

    private static (string Type, string Value) Claim(JsonElement claim)
    {
        if (claim.ValueKind != JsonValueKind.Object)
        {
            throw Malformed();
        }

        string? type = null, value = null;
        foreach (var property in claim.EnumerateObject())
        {
            if (property.NameEquals("typ"))
            {
                type = type is null && property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString() : throw Malformed();
            }
            else if (property.NameEquals("val"))
            {
                value = value is null && property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString() : throw Malformed();
            }
        }

        return type is not null && value is not null ? (type, value) : throw Malformed();
    }

    // A claim the principal repeats names two callers, or two spellings of one: neither is taken.
    private static string Single(string? held, string value, string name) =>
        held is null
            ? value
            : throw Problems.Unauthenticated($"The {HeaderName} principal has more than one {name} claim.");

    private static ProblemException OtherSpelling(string type) => type switch
    {
        "oid" => Problems.Unauthenticated($"The {HeaderName} principal names oid under a claim type other than the platform's ({ObjectIdLong})."),
        "tid" => Problems.Unauthenticated($"The {HeaderName} principal names tid under a claim type other than the platform's ({TenantIdLong})."),
        _ => Problems.Unauthenticated($"The {HeaderName} principal names roles under a claim type other than the platform's (roles)."),
    };

    private static ProblemException Malformed() => Problems.Unauthenticated($"The {HeaderName} header is not a JSON principal.");
}
