using FunctionApp.Functions;

namespace FunctionApp.Tests.TestKit;

/// <summary>One WebJobs host running the sign function with the vectors' key, shared by a test class.</summary>
public sealed class SignHostFixture : IAsyncLifetime
{
    public const long MaxBodyBytes = 2 * 1024 * 1024;

    private FunctionsTestHost? _host;

    public FunctionsTestHost Host => _host ?? throw new InvalidOperationException("host not started");

    public static Dictionary<string, string?> Settings() => new()
    {
        ["Signing:LocalKey"] = Vector.KeyBase64,
        ["Http:MaxRequestBodyBytes"] = MaxBodyBytes.ToString(System.Globalization.CultureInfo.InvariantCulture),
    };

    public async Task InitializeAsync() => _host = await FunctionsTestHost.StartAsync(Settings(), typeof(SignFunction));

    public async Task DisposeAsync()
    {
        if (_host is not null)
        {
            await _host.DisposeAsync();
        }
    }
}
