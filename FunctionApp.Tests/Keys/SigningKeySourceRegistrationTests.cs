using Azure.Core.Pipeline;
using Azure.Identity;
using Azure.Security.KeyVault.Secrets;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Keys;

/// <summary>
/// AddWidgetSigning picks Key Vault when a vault is configured, the local key otherwise, and never the local key in Azure.
/// Serial: a test points the process's managed identity endpoint variables at a loopback listener.
/// </summary>
[Collection(SerialCollection.Name)]
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
            ["Audit:Disabled"] = "true",
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
    public async Task CreateCredential_InAzure_IsManagedIdentityOnly()
    {
        // Arrange: App Service's managed identity endpoint, played by a loopback listener that records each token request.
        const string ClientId = "2f7a3c1e-6b0d-4d8e-9a51-0c3b7e2d9f10";
        var systemAssigned = KeyVaultClientFactory.CreateCredential(new KeyVaultOptions(), new FixedAzureEnvironment(true));
        var userAssigned = KeyVaultClientFactory.CreateCredential(new KeyVaultOptions { ManagedIdentityClientId = ClientId }, new FixedAzureEnvironment(true));

        // Act
        var systemQuery = await TokenRequestQueryAsync(() => KeyVaultClientFactory.CreateCredential(new KeyVaultOptions(), new FixedAzureEnvironment(true)));
        var userQuery = await TokenRequestQueryAsync(() => KeyVaultClientFactory.CreateCredential(new KeyVaultOptions { ManagedIdentityClientId = ClientId }, new FixedAzureEnvironment(true)));

        // Assert: managed identity only, and the user-assigned one asks for its own client id.
        Assert.IsType<ManagedIdentityCredential>(systemAssigned);
        Assert.IsType<ManagedIdentityCredential>(userAssigned);
        Assert.Null(systemQuery["client_id"]);
        Assert.Equal(ClientId, userQuery["client_id"]);
        Assert.Equal("https://vault.azure.net", userQuery["resource"]?.TrimEnd('/'));
    }

    [Fact]
    public void CreateCredential_OnDeveloperMachine_IsTheDeveloperChain()
    {
        var credential = KeyVaultClientFactory.CreateCredential(new KeyVaultOptions(), new FixedAzureEnvironment(false));

        Assert.IsType<DefaultAzureCredential>(credential);
    }

    /// <summary>
    /// The query string of the token request the credential sends to the managed identity endpoint (IDENTITY_ENDPOINT,
    /// set for the call to a loopback listener that answers 400, so the credential fails after asking).
    /// </summary>
    private static async Task<System.Collections.Specialized.NameValueCollection> TokenRequestQueryAsync(Func<Azure.Core.TokenCredential> create)
    {
        var port = FreePort();
        using var endpoint = new System.Net.HttpListener();
        endpoint.Prefixes.Add($"http://127.0.0.1:{port}/");
        endpoint.Start();
        var variables = new Dictionary<string, string?>
        {
            ["IDENTITY_ENDPOINT"] = $"http://127.0.0.1:{port}/msi/token",
            ["IDENTITY_HEADER"] = "test-header",
            ["MSI_ENDPOINT"] = null,
            ["IMDS_ENDPOINT"] = null,
        };
        var saved = variables.Keys.ToDictionary(k => k, Environment.GetEnvironmentVariable);
        try
        {
            foreach (var (name, value) in variables)
            {
                Environment.SetEnvironmentVariable(name, value);
            }

            var request = endpoint.GetContextAsync();
            var token = create().GetTokenAsync(new Azure.Core.TokenRequestContext(["https://vault.azure.net/.default"]), CancellationToken.None).AsTask();
            var context = await request.WaitAsync(TimeSpan.FromSeconds(30));
            var query = context.Request.QueryString;
            context.Response.StatusCode = 400;
            context.Response.Close();
            await Assert.ThrowsAnyAsync<Exception>(() => token);
            return query;
        }
        finally
        {
            foreach (var (name, value) in saved)
            {
                Environment.SetEnvironmentVariable(name, value);
            }
        }
    }

    private static int FreePort()
    {
        using var socket = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        socket.Start();
        return ((System.Net.IPEndPoint)socket.LocalEndpoint).Port;
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
