using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>One known-answer case from TestData/vectors (copied from the shared contract).</summary>
public sealed class Vector
{
    private Vector(string name, string directory)
    {
        Name = name;
        Directory = directory;
        var expected = JObject.Parse(File.ReadAllText(Path.Combine(directory, "expected.json")));
        Reject = expected.Value<bool>("reject");
        SignatureHex = expected.Value<string>("signatureHex");
        CanonicalLength = expected.Value<long?>("canonicalLength");
        WidgetCount = expected.Value<int?>("widgetCount");
        Algorithm = expected.Value<string>("algorithm");
    }

    public string Name { get; }

    public string Directory { get; }

    public bool Reject { get; }

    public string? SignatureHex { get; }

    public long? CanonicalLength { get; }

    public int? WidgetCount { get; }

    public string? Algorithm { get; }

    public byte[] Input => File.ReadAllBytes(Path.Combine(Directory, "input.json"));

    public byte[] Canonical => File.ReadAllBytes(Path.Combine(Directory, "canonical.json"));

    public static string Root => Path.Combine(AppContext.BaseDirectory, "TestData", "vectors");

    public static byte[] Key => Convert.FromBase64String(File.ReadAllText(Path.Combine(Root, "key.b64")).Trim());

    public static string KeyBase64 => File.ReadAllText(Path.Combine(Root, "key.b64")).Trim();

    public static Vector Load(string name) => new(name, Path.Combine(Root, name));

    public static IEnumerable<Vector> All() =>
        System.IO.Directory.GetDirectories(Root).OrderBy(d => d, StringComparer.Ordinal).Select(d => new Vector(Path.GetFileName(d), d));

    public static TheoryData<string> Names(bool reject)
    {
        var data = new TheoryData<string>();
        foreach (var vector in All().Where(v => v.Reject == reject))
        {
            data.Add(vector.Name);
        }

        return data;
    }

    public override string ToString() => Name;
}
