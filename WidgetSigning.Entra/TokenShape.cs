using System.Text.Json;
using Microsoft.IdentityModel.Tokens;
using WidgetSigning.Primitives;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// The shape of a token's header and payload, checked in one linear pass before the signature: each member the app or
/// <see cref="Microsoft.IdentityModel.JsonWebTokens.JsonWebTokenHandler"/> reads appears at most once (compared after
/// unescaping, so <c>"t\u0069d"</c> is <c>tid</c>) and has the JSON type Entra issues; the client application is named
/// by <c>azp</c> (v2) or <c>appid</c> (v1), never both; a header with <c>crit</c> is refused (RFC 7515 §4.1.11: the app
/// understands no extension). The parser is free to keep the first or the last of two members; with one of each there
/// is nothing to choose. Every refusal is fixed words naming the member, never its value.
/// </summary>
internal static class TokenShape
{
    private enum Kind
    {
        String,
        Number,
        StringArray,
        Refused,
    }

    // Indexes into the tables below.
    private const int Crit = 3;
    private const int Azp = 6;
    private const int AppId = 7;

    private static readonly (string Name, Kind Kind)[] HeaderMembers =
    [
        ("alg", Kind.String),
        ("typ", Kind.String),
        ("kid", Kind.String),
        ("crit", Kind.Refused),
    ];

    private static readonly (string Name, Kind Kind)[] PayloadMembers =
    [
        ("iss", Kind.String),
        ("aud", Kind.String),
        ("exp", Kind.Number),
        ("nbf", Kind.Number),
        ("tid", Kind.String),
        ("oid", Kind.String),
        ("azp", Kind.String),
        ("appid", Kind.String),
        ("roles", Kind.StringArray),
    ];

    /// <summary>Refuses <paramref name="token"/> unless its header and payload have the shape above.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.Unauthenticated"/>, naming the member.</exception>
    public static void Check(string token)
    {
        var first = token.IndexOf('.', StringComparison.Ordinal);
        var second = first < 0 ? -1 : token.IndexOf('.', first + 1);
        if (second < 0 || token.IndexOf('.', second + 1) >= 0)
        {
            throw Malformed();
        }

        var header = Scan(Decode(token.AsSpan(0, first)), HeaderMembers, "header member");
        if ((header & Bit(Crit)) != 0)
        {
            throw Problems.Unauthenticated("The token's header lists critical extensions (crit), which this app does not understand.");
        }

        var payload = Scan(Decode(token.AsSpan(first + 1, second - first - 1)), PayloadMembers, "claim");
        if ((payload & Bit(Azp)) != 0 && (payload & Bit(AppId)) != 0)
        {
            throw Problems.Unauthenticated("The token names its client application twice (azp and appid).");
        }
    }

    private static int Bit(int index) => 1 << index;

    private static byte[] Decode(ReadOnlySpan<char> segment)
    {
        try
        {
            return Base64UrlEncoder.DecodeBytes(segment.ToString());
        }
        catch (FormatException)
        {
            throw Malformed();
        }
    }

    // One pass over a JSON object's members: the set of watched members seen, as bits in the order of members.
    private static int Scan(byte[] json, (string Name, Kind Kind)[] members, string what)
    {
        var seen = 0;
        try
        {
            var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = 64 });
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw Malformed();
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var index = IndexOf(ref reader, members);
                reader.Read();
                if (index < 0)
                {
                    reader.Skip();
                    continue;
                }

                var (name, kind) = members[index];
                if ((seen & Bit(index)) != 0)
                {
                    throw Problems.Unauthenticated($"The token has more than one '{name}' {what}.");
                }

                seen |= Bit(index);
                if (!HasKind(ref reader, kind))
                {
                    throw Problems.Unauthenticated($"The token's '{name}' {what} is not {Describe(kind)}, as Entra issues it.");
                }
            }

            if (reader.TokenType != JsonTokenType.EndObject || reader.Read())
            {
                throw Malformed();
            }
        }
        catch (JsonException)
        {
            throw Malformed();
        }

        return seen;
    }

    private static int IndexOf(ref Utf8JsonReader reader, (string Name, Kind Kind)[] members)
    {
        for (var i = 0; i < members.Length; i++)
        {
            if (reader.ValueTextEquals(members[i].Name))
            {
                return i;
            }
        }

        return -1;
    }

    // Leaves the reader on the value's last token.
    private static bool HasKind(ref Utf8JsonReader reader, Kind kind)
    {
        switch (kind)
        {
            case Kind.String:
                return reader.TokenType == JsonTokenType.String;
            case Kind.Number:
                return reader.TokenType == JsonTokenType.Number;
            case Kind.StringArray:
                if (reader.TokenType != JsonTokenType.StartArray)
                {
                    return false;
                }

                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    if (reader.TokenType != JsonTokenType.String)
                    {
                        return false;
                    }
                }

                return true;
            default:
                reader.Skip();
                return true;
        }
    }

    private static string Describe(Kind kind) => kind switch
    {
        Kind.String => "a string",
        Kind.Number => "a number",
        _ => "an array of strings",
    };

    private static ProblemException Malformed() => Problems.Unauthenticated("The token is malformed.");
}
