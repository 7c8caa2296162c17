using Azure.Core.Pipeline;
using Azure.Identity;
using Azure.Security.KeyVault.Secrets;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Keys;

/// <summary>AddWidgetSigning picks Key Vault when a vault is configured, the local key otherwise, and never the local key in Azure.</summary>
public sealed class SigningKeySourceRegistrationTests
{
    [Fact]
    public void AddWidgetSigning_VaultConfigured_ResolvesKeyVaultSourceWithoutCallingIt()
    {
        using var provider = Build(inAzure: true, new()
        {
            ["KeyVault:VaultUri"] = "https://my-vault.vault.azure.net/",
            ["KeyVault:SecretName"] = "widget-signing-key",
        });

        var source = provider.GetRequiredService<IReceiverKeySource>();

        Assert.IsType<KeyVaultReceiverKeySource>(source);
        Assert.Same(provider.GetRequiredService<SecretClient>(), provider.GetRequiredService<SecretClient>());
    }

    [Fact]
    public void AddWidgetSigning_NoVaultOnDeveloperMachine_UsesLocalKey()
    {
        using var provider = Build(inAzure: false, new() { ["Signing:LocalKey"] = Vector.KeyBase64 });

        var source = provider.GetRequiredService<IReceiverKeySource>();

        Assert.IsType<ConfigurationReceiverKeySource>(source);
    }

    [Fact]
    public void AddWidgetSigning_NoVaultInAzure_RefusesTheLocalKey()
    {
        using var provider = Build(inAzure: true, new() { ["Signing:LocalKey"] = Vector.KeyBase64 });

        var error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IReceiverKeySource>());

        Assert.Contains("KeyVault:VaultUri", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("Production")]
    [InlineData("development-ish")]
    public void AddWidgetSigning_NoVaultOutsideDevelopmentAttack_RefusesTheLocalKey(string? environment)
    {
        // Arrange: not App Service (no WEBSITE_INSTANCE_ID), and not a developer's machine either: the real detector.
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = environment,
        }).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).BuildServiceProvider();

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IReceiverKeySource>());

        // Assert
        Assert.Contains("AZURE_FUNCTIONS_ENVIRONMENT=Development", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AddWidgetSigning_NoVaultInDevelopment_UsesLocalKey()
    {
        // Arrange: what func start sets.
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
            ["Auth:Disabled"] = "true",
        }).Build();
        using var provider = new ServiceCollection().AddLogging().AddWidgetSigning(configuration).BuildServiceProvider();

        // Act
        var source = provider.GetRequiredService<IReceiverKeySource>();

        // Assert
        Assert.IsType<ConfigurationReceiverKeySource>(source);
    }

    [Fact]
    public async Task AddWidgetSigning_VaultConfigured_SignsWithKeyFromVault()
    {
        // Arrange: the real client through DI, its transport pointed at the fake vault.
        await using var server = await FakeKeyVaultServer.StartAsync(() => DateTimeOffset.UtcNow);
        var version = server.SetSecret("widget-signing-key", Vector.KeyBase64);
        var settings = new Dictionary<string, string?>
        {
            ["KeyVault:VaultUri"] = server.VaultUri.AbsoluteUri,
            ["KeyVault:SecretName"] = "widget-signing-key",
        };
        using var provider = Build(inAzure: true, settings, services => services.AddSingleton(sp =>
        {
            var options = sp.GetRequiredService<IOptions<KeyVaultOptions>>().Value;
            var clientOptions = KeyVaultClientFactory.CreateClientOptions(options);
            clientOptions.Transport = new HttpClientTransport(server.CreateHandler());
            return KeyVaultClientFactory.CreateClient(options, new StaticTokenCredential(server.Token), clientOptions);
        }));
        var vector = Vector.Load("one-widget");
        var envelope = new TestServices().Read(vector.Input);

        // Act
        using var signed = await provider.GetRequiredService<EnvelopeSigner>().SignAsync(envelope, SignRequest.For(SigningTestExtensions.DefaultReceiver), CancellationToken.None);

        // Assert
        Assert.Equal(version, signed.KeyId);
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
    }

    [Fact]
    public void CreateCredential_InAzure_IsManagedIdentityOnly()
    {
        var systemAssigned = KeyVaultClientFactory.CreateCredential(new KeyVaultOptions(), new FixedAzureEnvironment(true));
        var userAssigned = KeyVaultClientFactory.CreateCredential(
            new KeyVaultOptions { ManagedIdentityClientId = "2f7a3c1e-6b0d-4d8e-9a51-0c3b7e2d9f10" }, new FixedAzureEnvironment(true));

        Assert.IsType<ManagedIdentityCredential>(systemAssigned);
        Assert.IsType<ManagedIdentityCredential>(userAssigned);
    }

    [Fact]
    public void CreateCredential_OnDeveloperMachine_IsTheDeveloperChain()
    {
        var credential = KeyVaultClientFactory.CreateCredential(new KeyVaultOptions(), new FixedAzureEnvironment(false));

        Assert.IsType<DefaultAzureCredential>(credential);
    }

    private static ServiceProvider Build(bool inAzure, Dictionary<string, string?> settings, Action<IServiceCollection>? before = null)
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddSingleton<IAzureEnvironment>(new FixedAzureEnvironment(inAzure));
        before?.Invoke(services);
        services.AddWidgetSigning(configuration);
        return services.BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true, ValidateScopes = true });
    }
}
