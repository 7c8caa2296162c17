namespace FunctionApp.Tests.Infra;

/// <summary>The storage connection strings the template keeps in the vault: rotate-safe, never in an output.</summary>
public sealed class ConnectionSecretsTests
{
    private static CompiledInfra Infra => CompiledInfra.Instance;

    [Fact]
    public void StorageKeyName_IsKey1OrKey2_DefaultKey1()
    {
        Assert.Equal(["key1", "key2"], Infra.Allowed("storageKeyName"));
        Assert.Equal("key1", (string?)Infra.Parameters["storageKeyName"]!["defaultValue"]);
        Assert.Equal("[parameters('storageKeyName')]", (string?)Infra.Module("connectionSecrets")["properties"]!["parameters"]!["storageKeyName"]!["value"]);
    }

    [Fact]
    public void Secrets_AreBuiltFromTheNamedKey_NotTheFirstOne()
    {
        var secrets = Infra.ResourcesOfType("Microsoft.KeyVault/vaults/secrets");

        Assert.Equal(2, secrets.Count);
        Assert.All(secrets, s =>
        {
            var value = (string)s.Resource["properties"]!["value"]!;
            Assert.Contains("filter(listKeys(", value, StringComparison.Ordinal);
            Assert.Contains("equals(lambdaVariables('k').keyName, parameters('storageKeyName'))", value, StringComparison.Ordinal);
            Assert.DoesNotContain(".keys[0]", value, StringComparison.Ordinal);
            Assert.StartsWith("[format('DefaultEndpointsProtocol=https;AccountName={0};EndpointSuffix={1};AccountKey={2}'", value, StringComparison.Ordinal);
            // The content type records which key a version was built from, for whoever rotates next.
            Assert.Equal("[format('text/plain; storage-connection-string; {0}', parameters('storageKeyName'))]", (string?)s.Resource["properties"]!["contentType"]);
        });
        Assert.DoesNotContain("keys[0]", Infra.Main.ToJsonString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Outputs_AreVersionlessUrisOnly()
    {
        var outputs = CompiledInfra.Template(Infra.Module("connectionSecrets"))["outputs"]!.AsObject();

        Assert.Equal(["contentShareSecretUri", "widgetStorageSecretUri"], outputs.Select(o => o.Key).Order(StringComparer.Ordinal));
        Assert.All(outputs, o => Assert.EndsWith(".secretUri]", (string?)o.Value!["value"], StringComparison.Ordinal));
    }
}
