using System.Text;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Extensions.Primitives;

namespace LocalIssuer;

/// <summary>
/// A client-credentials token request as Entra takes one (<c>grant_type</c>, <c>scope</c>, <c>client_id</c>,
/// <c>client_secret</c>), plus the local-only fields that say who the token is for: <c>roles</c>, <c>oid</c>, <c>azp</c>.
/// </summary>
/// <param name="Roles">The app roles the token carries (a subset of <see cref="LocalTenant.Roles"/>, possibly none).</param>
/// <param name="ObjectId">The caller's object id: <c>oid</c> and <c>sub</c>.</param>
/// <param name="ClientId">The caller's client id: <c>azp</c>.</param>
internal sealed record TokenRequest(IReadOnlyList<string> Roles, string ObjectId, string ClientId)
{
    /// <summary>The largest form accepted; an Entra client-credentials form with a secret is a few hundred bytes.</summary>
    public const int MaxFormBytes = 4096;

    private const string FormContentType = "application/x-www-form-urlencoded";

    private static readonly string[] Fields = ["grant_type", "scope", "client_id", "client_secret", "roles", "oid", "azp"];

    private static readonly string[] Scopes = [$"{LocalTenant.Audience}/.default", $"{LocalTenant.AppIdUri}/.default"];

    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Reads and checks the request's form: the token request, or the error naming the field at fault.</summary>
    /// <param name="request">The HTTP request.</param>
    public static async Task<(TokenRequest? Request, IssuerError? Error)> ReadAsync(HttpRequest request)
    {
        if (!MediaTypeIs(request.ContentType, FormContentType))
        {
            return (null, new IssuerError(StatusCodes.Status415UnsupportedMediaType, "invalid_request", "Content-Type", $"The token request must be {FormContentType}."));
        }

        if (request.ContentLength > MaxFormBytes)
        {
            return (null, TooLarge());
        }

        var body = new byte[MaxFormBytes + 1];
        var length = 0;
        int read;
        while (length < body.Length && (read = await request.Body.ReadAsync(body.AsMemory(length), request.HttpContext.RequestAborted)) > 0)
        {
            length += read;
        }

        if (length > MaxFormBytes)
        {
            return (null, TooLarge());
        }

        Dictionary<string, StringValues> form;
        try
        {
            using var reader = new FormReader(StrictUtf8.GetString(body, 0, length)) { ValueCountLimit = Fields.Length, KeyLengthLimit = 32, ValueLengthLimit = MaxFormBytes };
            form = reader.ReadForm();
        }
        catch (Exception exception) when (exception is DecoderFallbackException or InvalidDataException)
        {
            return (null, Invalid("form", $"The form is not valid UTF-8 application/x-www-form-urlencoded with at most {Fields.Length} fields."));
        }

        return Check(form);
    }

    private static (TokenRequest? Request, IssuerError? Error) Check(Dictionary<string, StringValues> form)
    {
        foreach (var (name, values) in form)
        {
            if (!Fields.Contains(name, StringComparer.Ordinal))
            {
                return (null, Invalid(name, $"Unknown field '{Truncate(name)}'; the issuer takes {string.Join(", ", Fields)}."));
            }

            if (values.Count != 1)
            {
                return (null, Invalid(name, $"'{name}' is given {values.Count} times; give it once."));
            }
        }

        var grantType = Value(form, "grant_type");
        if (grantType is null)
        {
            return (null, Invalid("grant_type", "'grant_type' is required: client_credentials."));
        }

        if (grantType != "client_credentials")
        {
            return (null, new IssuerError(StatusCodes.Status400BadRequest, "unsupported_grant_type", "grant_type", $"Only client_credentials is supported, not '{Truncate(grantType)}'."));
        }

        var scope = Value(form, "scope");
        if (scope is null || !Scopes.Contains(scope, StringComparer.Ordinal))
        {
            return (null, new IssuerError(StatusCodes.Status400BadRequest, "invalid_scope", "scope", $"'scope' must be {string.Join(" or ", Scopes)}."));
        }

        var roles = LocalTenant.Roles;
        if (Value(form, "roles") is { } rolesValue)
        {
            var asked = rolesValue.Length == 0 ? [] : rolesValue.Split(',', StringSplitOptions.TrimEntries);
            var unknown = asked.FirstOrDefault(r => !LocalTenant.Roles.Contains(r, StringComparer.Ordinal));
            if (unknown is not null)
            {
                return (null, Invalid("roles", $"Unknown role '{Truncate(unknown)}'; the roles are {string.Join(", ", LocalTenant.Roles)}."));
            }

            roles = [.. asked.Distinct(StringComparer.Ordinal)];
        }

        var clientId = Value(form, "client_id");
        if (clientId is not null && !IsGuid(clientId))
        {
            return (null, Invalid("client_id", "'client_id' must be a GUID."));
        }

        var oid = Value(form, "oid") ?? LocalTenant.DefaultCallerObjectId;
        if (!IsGuid(oid))
        {
            return (null, Invalid("oid", "'oid' must be a GUID."));
        }

        var azp = Value(form, "azp") ?? clientId ?? LocalTenant.DefaultCallerClientId;
        if (!IsGuid(azp))
        {
            return (null, Invalid("azp", "'azp' must be a GUID."));
        }

        return (new TokenRequest(roles, oid.ToLowerInvariant(), azp.ToLowerInvariant()), null);
    }

    private static string? Value(Dictionary<string, StringValues> form, string name) => form.TryGetValue(name, out var values) ? values.ToString() : null;

    private static bool IsGuid(string value) => Guid.TryParseExact(value, "D", out _);

    private static bool MediaTypeIs(string? contentType, string expected) =>
        contentType is not null && contentType.Split(';')[0].Trim().Equals(expected, StringComparison.OrdinalIgnoreCase);

    private static IssuerError Invalid(string field, string description) =>
        new(StatusCodes.Status400BadRequest, "invalid_request", Truncate(field), description);

    private static IssuerError TooLarge() => Invalid("form", $"The form is larger than {MaxFormBytes} bytes.");

    // Echoed input stays short: an error never repeats a client's whole field back.
    private static string Truncate(string value) => value.Length <= 64 ? value : value[..64] + "...";
}
