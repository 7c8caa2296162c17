using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Callers.Entra;

/// <summary>
/// Fetches the issuer's keys as the host starts, so a cold instance's first call does not wait on that fetch (a call
/// waits at most <see cref="EntraTokenValidator.MaxWait"/>, then is a 503). Start-up never waits for the issuer either:
/// an issuer that is down is the 503 path's to report. Nothing is fetched with <c>Auth:Disabled</c>.
/// </summary>
internal sealed class IssuerKeysWarmUp(IServiceProvider services, IOptions<AuthOptions> options) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        if (!options.Value.Disabled)
        {
            (services.GetRequiredService<ITokenValidator>() as EntraTokenValidator)?.Prefetch();
        }

        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
