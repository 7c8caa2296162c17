using Microsoft.Extensions.Options;
using WidgetSigning.Keys;

namespace WidgetSigning.Callers;

/// <summary>
/// The rules of <see cref="AuthOptions"/> that depend on the environment or on a URI, which attributes cannot express.
/// Fail closed: anywhere but a developer's machine, every HTTP call must carry a token the app validates.
/// </summary>
/// <param name="environment">Azure or a developer's machine.</param>
/// <param name="hostValidatesTokens">The host registered its own token validator (the isolated app).</param>
internal sealed class AuthOptionsValidator(IAzureEnvironment environment, bool hostValidatesTokens) : IValidateOptions<AuthOptions>
{
    private const string PlatformAuthentication = AuthOptions.SectionName + ":" + nameof(AuthOptions.PlatformAuthentication);
    private const string Disabled = AuthOptions.SectionName + ":" + nameof(AuthOptions.Disabled);
    private const string TenantId = AuthOptions.SectionName + ":" + nameof(AuthOptions.TenantId);
    private const string Audience = AuthOptions.SectionName + ":" + nameof(AuthOptions.Audience);
    private const string Authority = AuthOptions.SectionName + ":" + nameof(AuthOptions.Authority);

    public ValidateOptionsResult Validate(string? name, AuthOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.PlatformAuthentication && options.Disabled)
        {
            return ValidateOptionsResult.Fail($"{PlatformAuthentication} and {Disabled} are both set; set one.");
        }

        // A host that validates tokens takes none on the platform's word: a principal header is refused there.
        if (options.PlatformAuthentication && hostValidatesTokens)
        {
            return ValidateOptionsResult.Fail($"{PlatformAuthentication} is for the in-process app behind App Service Authentication; this app validates tokens itself. Remove {PlatformAuthentication}.");
        }

        if (options.Disabled)
        {
            if (environment.IsRunningInAzure)
            {
                return ValidateOptionsResult.Fail($"{Disabled} is set, but this is Azure: every call must carry a validated token. Remove {Disabled}.");
            }

            return environment.IsDevelopment
                ? ValidateOptionsResult.Success
                : ValidateOptionsResult.Fail($"{Disabled} is accepted only when {AzureEnvironment.EnvironmentSetting}={AzureEnvironment.Development}.");
        }

        var failures = new List<string>();
        if (string.IsNullOrWhiteSpace(options.Audience))
        {
            failures.Add($"{Audience} is not set: set it to the app registration's client id (docs/deploy.md).");
        }

        // Required with a local authority too: every token must name this tenant (tid), so none is accepted for another.
        if (string.IsNullOrWhiteSpace(options.TenantId))
        {
            failures.Add($"{TenantId} is not set: set it to the tenant whose tokens are accepted (tid).");
        }

        if (!string.IsNullOrWhiteSpace(options.Authority))
        {
            if (environment.IsRunningInAzure)
            {
                failures.Add($"{Authority} is for the local issuer only; in Azure tokens come from Entra ({TenantId}).");
            }
            else if (!Uri.TryCreate(options.Authority, UriKind.Absolute, out var authority)
                || !(authority.Scheme == Uri.UriSchemeHttps || (authority.Scheme == Uri.UriSchemeHttp && authority.IsLoopback)))
            {
                failures.Add($"{Authority} must be an absolute https URI, or http on a loopback address (the local issuer).");
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
