namespace FunctionApp.Tests.Infra;

/// <summary>Source checks of infra/modules/monitoring.bicep.</summary>
public sealed class MonitoringModuleTests
{
    [Fact]
    public void ApplicationInsights_IsBackedByTheLogAnalyticsWorkspace()
    {
        var module = InfraFiles.Module("monitoring");
        var appInsights = module.Resource("appInsights");

        Assert.Equal("Microsoft.Insights/components", appInsights.ResourceType);
        Assert.Equal("Microsoft.OperationalInsights/workspaces", module.Resource("workspace").ResourceType);
        Assert.Equal("workspace.id", appInsights.Body.Path("properties.WorkspaceResourceId").Text);
        Assert.Equal("LogAnalytics", InfraFiles.Literal(appInsights.Body.Path("properties.IngestionMode")));
        Assert.Equal("appInsights.name", module.Output("appInsightsName").Value!.Text);
    }
}
