using WidgetSigning.Keys;
using Microsoft.AspNetCore.Http;
using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>
/// The fields of <c>/api/verify</c> besides the envelope: the signature (<c>X-Signature</c> header or <c>?signature=</c>)
/// and the optional key id (<c>X-Signature-Key-Id</c> header or <c>?keyId=</c>), the same headers <c>/api/sign</c> answers with.
/// </summary>
internal static class VerifyRequestFields
{
    /// <summary>The query parameter alternative to the <c>X-Signature</c> header.</summary>
    public const string SignatureParameter = "signature";

    /// <summary>The query parameter alternative to the <c>X-Signature-Key-Id</c> header.</summary>
    public const string KeyIdParameter = "keyId";

    /// <summary>The longest key id accepted (Key Vault versions are 32 characters).</summary>
    public const int MaxKeyIdLength = 128;

    /// <summary>True when an <c>X-Signature</c> header or <c>?signature=</c> is present (optional beside the <c>webhook-*</c> headers).</summary>
    public static bool HasSignature(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return request.Headers.ContainsKey(SignatureHeaders.Signature) || request.Query.ContainsKey(SignatureParameter);
    }

    /// <summary>Reads the signature: 64 hex digits.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: it is missing, given twice differently, or malformed.</exception>
    public static Signature ReadSignature(HttpRequest request)
    {
        var value = ReadOne(request, SignatureHeaders.Signature, SignatureParameter)
            ?? throw Problems.InvalidRequest($"The signature is missing: send it in the {SignatureHeaders.Signature} header or the '{SignatureParameter}' query parameter.");
        return Signature.TryParseHex(value.Trim(), out var signature)
            ? signature
            : throw Problems.InvalidRequest($"The signature must be {Signature.Length * 2} hexadecimal digits (HMAC-SHA256).");
    }

    /// <summary>Reads the optional key id; null when none is given.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: it is given twice differently, or is not a plausible key id.</exception>
    public static string? ReadKeyId(HttpRequest request)
    {
        var value = ReadOne(request, SignatureHeaders.KeyId, KeyIdParameter);
        if (value is null)
        {
            return null;
        }

        value = value.Trim();
        if (value.Length is 0 or > MaxKeyIdLength || !value.All(IsKeyIdChar))
        {
            throw Problems.InvalidRequest($"The key id must be 1 to {MaxKeyIdLength} letters, digits, '-', '_' or '.'.");
        }

        return value;
    }

    private static bool IsKeyIdChar(char c) => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.';

    private static string? ReadOne(HttpRequest request, string header, string parameter)
    {
        ArgumentNullException.ThrowIfNull(request);
        var fromHeader = RequestValues.SingleHeader(request.Headers[header], header, RequestValues.FieldWording);
        var fromQuery = RequestValues.Single(request.Query[parameter], parameter, RequestValues.FieldWording);
        if (fromHeader is not null && fromQuery is not null && !string.Equals(fromHeader.Trim(), fromQuery.Trim(), StringComparison.Ordinal))
        {
            throw Problems.InvalidRequest($"The {header} header and the '{parameter}' query parameter disagree; send one.");
        }

        return fromHeader ?? fromQuery;
    }
}
