using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Microsoft.IO;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;

namespace FunctionApp.Benchmarks.Seed;

/// <summary>
/// The seed benchmark's <c>SerializeAndSignHelper</c>, kept as published: Newtonsoft with only
/// <see cref="CamelCasePropertyNamesContractResolver"/>, a new <see cref="HMACSHA256"/> per call, and
/// <c>ComputeHash</c> over the string's bytes, a <see cref="MemoryStream"/> or a <see cref="RecyclableMemoryStream"/>
/// from a default manager. Only the key is set from outside, so our signer can be checked against it.
/// </summary>
public static class SeedSerializeAndSign
{
    private static readonly JsonSerializerSettings CamelCaseSettings = new()
    {
        ContractResolver = new CamelCasePropertyNamesContractResolver(),
    };

    private static readonly JsonSerializer CamelCaseSerializer = JsonSerializer.Create(CamelCaseSettings);
    private static readonly UTF8Encoding Utf8EncodingNoBom = new(encoderShouldEmitUTF8Identifier: false);

    private static byte[] _hmacKey = RandomNumberGenerator.GetBytes(32);

    /// <summary>The seed's static default manager (exposed so the load run can read its pool sizes).</summary>
    public static RecyclableMemoryStreamManager MemoryStreamManager { get; } = new();

    /// <summary>The seed's camelCase serializer (the "Newtonsoft serialization alone" limit uses it too).</summary>
    public static JsonSerializer Serializer => CamelCaseSerializer;

    /// <summary>Sets the HMAC key (the seed does not show where its key comes from).</summary>
    public static void UseKey(byte[] key) => _hmacKey = (byte[])key.Clone();

    /// <summary>Serialize the object to a JSON string, then compute a hash of the JSON byte[].</summary>
    public static string SerializeToStringAndSign(object value)
    {
        var widgetEnvJson = JsonConvert.SerializeObject(value, CamelCaseSettings);
        var itemsJsonBytes = Encoding.UTF8.GetBytes(widgetEnvJson);
        using var hmac = new HMACSHA256(key: _hmacKey);
        var hashedBytes = hmac.ComputeHash(itemsJsonBytes);
        return ToFriendlyHashString(hashedBytes);
    }

    /// <summary>Serialize to a new MemoryStream, then compute the hash of the stream contents.</summary>
    public static string SerializeToMemoryStreamAndSign(object value)
    {
        using var jsonStream = new MemoryStream();
        using (var streamWriter = new StreamWriter(jsonStream, Utf8EncodingNoBom, leaveOpen: true))
        {
            CamelCaseSerializer.Serialize(streamWriter, value);
        }

        jsonStream.Position = 0L;
        using var hmac = new HMACSHA256(key: _hmacKey);
        var hashedBytes = hmac.ComputeHash(jsonStream);
        return ToFriendlyHashString(hashedBytes);
    }

    /// <summary>Serialize to a RecyclableMemoryStream, then compute the hash of the stream contents.</summary>
    public static string SerializeToRecyclableMemoryStreamAndSign(object value)
    {
        using var jsonStream = MemoryStreamManager.GetStream(tag: nameof(SerializeToRecyclableMemoryStreamAndSign));
        using (var streamWriter = new StreamWriter(jsonStream, Utf8EncodingNoBom, leaveOpen: true))
        {
            CamelCaseSerializer.Serialize(streamWriter, value);
        }

        jsonStream.Position = 0L;
        using var hmac = new HMACSHA256(key: _hmacKey);
        var hashedBytes = hmac.ComputeHash(jsonStream);
        return ToFriendlyHashString(hashedBytes);
    }

    // The seed does not show ToFriendlyHashString; this is the classic lowercase-hex loop of that era.
    private static string ToFriendlyHashString(byte[] hashedBytes)
    {
        var builder = new StringBuilder(hashedBytes.Length * 2);
        foreach (var b in hashedBytes)
        {
            builder.Append(b.ToString("x2", CultureInfo.InvariantCulture));
        }

        return builder.ToString();
    }
}
