using System.Text.Json;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// One Ed25519 known answer (TestData/ed25519-vectors/&lt;case&gt;.json), computed with Node's crypto (OpenSSL), not the
/// app's library: the <c>v1a</c> entry over <c>id.timestamp.</c> and the case's canonical.json, and the plain signature
/// over canonical.json alone, under <see cref="Secret"/>.
/// </summary>
internal sealed record Ed25519Vector(string Name, string Secret, string PublicKey, string Id, long Timestamp, string Signature, string PlainSignature)
{
    public static string Root => Path.Combine(AppContext.BaseDirectory, "TestData", "ed25519-vectors");

    public static TheoryData<string> Names()
    {
        var names = new TheoryData<string>();
        foreach (var file in Directory.GetFiles(Root, "*.json").OrderBy(f => f, StringComparer.Ordinal))
        {
            names.Add(Path.GetFileNameWithoutExtension(file));
        }

        return names;
    }

    public static Ed25519Vector Load(string name)
    {
        using var json = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(Root, name + ".json")));
        var root = json.RootElement;
        return new Ed25519Vector(
            name,
            root.GetProperty("secret").GetString()!,
            root.GetProperty("publicKey").GetString()!,
            root.GetProperty("id").GetString()!,
            root.GetProperty("timestamp").GetInt64(),
            root.GetProperty("signature").GetString()!,
            root.GetProperty("plainSignature").GetString()!);
    }

    /// <summary>The case's input and canonical bytes.</summary>
    public Vector Vector => Vector.Load(Name);
}
